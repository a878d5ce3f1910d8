// Which finding ids can fire on which platform, as a decision in one table (issue 58): each id of
// the rule groups every platform shares (the Python environments' PyTorch, the CUDA allocator's
// setting) has a scenario on each platform whose record lists its group, and fires there; where an
// id is left out on a platform the table says why. The doctor is pure over facts, so each scenario
// is the facts that platform's source gives, diagnosed by the record's groups.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>

#include "core/text.hpp"
#include "diagnose/rules.hpp"
#include "platform/platform_record.hpp"

namespace dlready::test {
namespace {

// A machine of `p` with an NVIDIA GPU on its bus (what its source reports) and nothing else.
Facts machine_of(const PlatformRecord& p) {
  Facts f;
  f.os.id = p.platform == Platform::linux ? std::string("debian") : std::string(p.name);
  if (p.platform != Platform::macos) {
    PciFunction gpu;
    gpu.address = "0000:01:00.0", gpu.vendor_id = "10de", gpu.device_id = "2330", gpu.class_code = "030200";
    gpu.is_gpu = true;
    f.pci.nvidia.push_back(gpu);
  }
  return f;
}

std::string prefix_on(const PlatformRecord& p, const std::string& name) {
  return p.platform == Platform::windows ? "C:\\Users\\alice\\" + name : "/home/alice/" + name;
}

PythonEnv env_on(const PlatformRecord& p, const std::string& name, bool active) {
  PythonEnv e;
  e.prefix = prefix_on(p, name);
  e.kind = "venv";
  e.active = active;
  e.site_packages = {e.prefix + (p.platform == Platform::windows ? "\\Lib\\site-packages" : "/lib/python3.11/site-packages")};
  return e;
}

TorchInstall torch_in(const PythonEnv& e, const std::string& version, std::optional<std::string> cuda) {
  TorchInstall t;
  t.site_packages = e.site_packages.front();
  t.version = version, t.cuda = cuda, t.version_py_found = true, t.has_libtorch_cuda = cuda.has_value();
  t.dist_info_count = 1;
  return t;
}

struct Decision {
  unsigned platforms;                 // PlatformBit: where the id can fire
  std::string elsewhere;              // why not on the others ("" when it fires everywhere)
  std::function<void(Facts&, const PlatformRecord&)> scenario;
};

const std::map<std::string, Decision>& decisions() {
  static const std::map<std::string, Decision> kTable = {
      {"torch-not-installed",
       {kEveryPlatform, "", [](Facts& f, const PlatformRecord& p) { f.python.envs = {env_on(p, "venv", true)}; }}},
      {"active-env-without-torch",
       {kEveryPlatform, "", [](Facts& f, const PlatformRecord& p) {
          auto with = env_on(p, "torch-env", false);
          with.torch = {torch_in(with, "2.11.0", std::nullopt)};
          f.python.envs = {env_on(p, "venv", true), with};
        }}},
      {"torch-cpu-only",
       {kLinux | kWindows, "a Mac has no NVIDIA GPU: every torch there is the build it can use", [](Facts& f, const PlatformRecord& p) {
          auto e = env_on(p, "venv", true);
          e.torch = {torch_in(e, "2.11.0+cpu", std::nullopt)};
          f.python.envs = {e};
        }}},
      {"torch-duplicate-installs",
       {kEveryPlatform, "", [](Facts& f, const PlatformRecord& p) {
          auto e = env_on(p, "venv", true);
          e.torch = {torch_in(e, "2.11.0+cu130", "13.0")};
          e.torch[0].dist_info_count = 2;
          f.python.envs = {e};
        }}},
      {"torch-cuda-wheel-missing",
       {kLinux, "only Linux's CUDA wheels pin nvidia-* wheels (Windows' carry their DLLs, macOS has no CUDA)",
        [](Facts& f, const PlatformRecord& p) {
          auto e = env_on(p, "venv", true);
          e.torch = {torch_in(e, "2.11.0+cu130", "13.0")};
          e.torch[0].nvidia_pins = {{"nvidia-cudnn-cu13", "9.19.0.56"}};
          f.python.envs = {e};
        }}},
      {"torch-cuda-wheel-version-mismatch",
       {kLinux, "only Linux's CUDA wheels pin nvidia-* wheels (Windows' carry their DLLs, macOS has no CUDA)",
        [](Facts& f, const PlatformRecord& p) {
          auto e = env_on(p, "venv", true);
          e.torch = {torch_in(e, "2.11.0+cu130", "13.0")};
          e.torch[0].nvidia_pins = {{"nvidia-cudnn-cu13", "9.19.0.56"}};
          e.torch[0].nvidia_installed = {{"nvidia-cudnn-cu13", "9.10.0.1"}};
          f.python.envs = {e};
        }}},
      {"alloc-conf-invalid",
       {kLinux | kWindows, "macOS has no CUDA allocator (MPS's variables are rules_macos's)",
        [](Facts& f, const PlatformRecord&) { f.env.vars["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segment:True"; }}},
  };
  return kTable;
}

bool fires(const Report& r, const std::string& id) {
  for (const auto& x : r.findings)
    if (x.id == id) return true;
  return false;
}

TEST(FindingsByPlatform, EachSharedIdFiresOnEveryPlatformItCanApplyOn) {
  std::map<std::string, std::vector<std::string>> fired;  // platform -> ids
  for (const auto& p : platform_records()) {
    for (const auto& [id, decision] : decisions()) {
      if (!(decision.platforms & p.bit)) {
        EXPECT_FALSE(decision.elsewhere.empty()) << id << " is left out on " << p.title << " without a reason";
        continue;
      }
      Facts f = machine_of(p);
      decision.scenario(f, p);
      auto report = diagnose(f);
      EXPECT_TRUE(fires(report, id)) << id << " has no scenario that fires on " << p.title;
      if (fires(report, id)) fired[std::string(p.name)].push_back(id);
      // The fix is in the platform's words: a Linux path never in a Windows fix, nor the reverse.
      for (const auto& x : report.findings)
        if (x.id == id)
          for (const auto& line : x.fix) {
            if (p.platform == Platform::windows) EXPECT_EQ(line.find("/bin/"), std::string::npos) << id << ": " << line;
            if (p.platform != Platform::windows) EXPECT_EQ(line.find("\\Scripts\\"), std::string::npos) << id << ": " << line;
          }
    }
  }
  for (const auto& [platform, ids] : fired) std::printf("%s: %s\n", platform.c_str(), join(ids, ", ").c_str());
}

// Every id the shared groups produce in these scenarios is in the table: a new rule there is placed
// on its platforms on purpose.
TEST(FindingsByPlatform, EveryIdOfTheSharedGroupsIsDecided) {
  std::set<std::string> produced;
  for (const auto& p : platform_records())
    for (const auto& [id, decision] : decisions()) {
      Facts f = machine_of(p);
      decision.scenario(f, p);
      std::vector<Finding> out;
      rules_python(f, derive(f), out);
      alloc_conf_rules(f, out);
      for (const auto& x : out) produced.insert(x.id);
    }
  for (const auto& id : produced) EXPECT_TRUE(decisions().count(id)) << id << " has no row in the table";
  EXPECT_EQ(produced.size(), decisions().size());
}

}  // namespace
}  // namespace dlready::test
