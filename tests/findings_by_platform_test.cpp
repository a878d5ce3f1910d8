// Which finding ids can fire on which platform, as a decision in one table (issue 58). Every id of
// the catalogue has a row: an id that can fire on more than one platform (the Python environments'
// PyTorch, the allocator's setting, what NVML and CUDA_VISIBLE_DEVICES say, and the driver questions
// both NVIDIA platforms ask) has a scenario here on each platform the row names, and fires there; an
// id written for one platform names it and says why not the others (its scenario is that platform's
// scenario test, which Scenario.EveryCatalogueIdIsExercised keeps honest). The doctor is pure over
// facts, so each scenario is the facts that platform's source gives, diagnosed by its record.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>

#include "core/text.hpp"
#include "diagnose/catalogue.hpp"
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

NvmlDevice nvml_gpu() {
  NvmlDevice g;
  g.index = 0, g.name = "NVIDIA H100 80GB HBM3", g.uuid = "GPU-11111111-2222-3333-4444-555555555555";
  g.compute_mode = 0, g.memory_total = 85899345920ull, g.memory_used = 1u << 30;
  return g;
}

TorchInstall torch_in(const PythonEnv& e, const std::string& version, std::optional<std::string> cuda) {
  TorchInstall t;
  t.site_packages = e.site_packages.front();
  t.version = version, t.cuda = cuda, t.version_py_found = true, t.has_libtorch_cuda = cuda.has_value();
  t.dist_info_count = 1;
  return t;
}

struct Decision {
  unsigned platforms;     // PlatformBit: where the id can fire
  std::string elsewhere;  // why not on the others ("" when it fires everywhere)
  // The facts that make it fire on a platform; none: its one platform's scenario test has it.
  std::function<void(Facts&, const PlatformRecord&)> scenario;
};

using Scenario = std::function<void(Facts&, const PlatformRecord&)>;

Scenario with_nvml(std::function<void(NvmlDevice&)> edit) {
  return [edit](Facts& f, const PlatformRecord&) {
    f.nvml.status = ProbeStatus::ok, f.nvml.device_count = 1;
    f.nvml.devices = {nvml_gpu()};
    edit(f.nvml.devices[0]);
  };
}

Scenario with_variable(std::string name, std::string value) {
  return [name, value](Facts& f, const PlatformRecord&) {
    f.nvml.status = ProbeStatus::ok, f.nvml.device_count = 1;
    f.nvml.devices = {nvml_gpu()};
    f.env.vars[name] = value;
  };
}

Scenario with_venv_torch(std::string version, std::optional<std::string> cuda,
                         std::function<void(TorchInstall&)> edit = [](TorchInstall&) {}) {
  return [version, cuda, edit](Facts& f, const PlatformRecord& p) {
    auto e = env_on(p, "venv", true);
    e.torch = {torch_in(e, version, cuda)};
    edit(e.torch[0]);
    f.python.envs = {e};
  };
}

Scenario with_driver_status(ProbeStatus status) {
  return [status](Facts& f, const PlatformRecord& p) {
    f.driver.status = status, f.driver.detail = "no answer";
    f.driver.library = p.platform == Platform::windows ? "C:\\Windows\\System32\\nvcuda.dll" : "/usr/lib/x86_64-linux-gnu/libcuda.so.1";
    f.kernel.nvidia_loaded = true;
  };
}

const char* const kOnlyLinuxCuda = "only Linux's CUDA wheels pin nvidia-* wheels (Windows' carry their DLLs, macOS has no CUDA)";
const char* const kNoCudaOnMac = "macOS has no NVIDIA driver or CUDA";
const char* const kLinuxKernel = "Linux's kernel module, sysfs, /dev or loader (Windows' driver is asked through its own files and registry)";
const char* const kLinuxServices = "Linux's firmware, containers and collectives' network variables";
const char* const kArm = "Jetson's and Grace's Linux (the aarch64 machines)";
const char* const kWindowsOwn = "Windows' DLL search, registry and graphics settings";
const char* const kMacOwn = "Apple's MPS, Rosetta and macOS versions";

std::map<std::string, Decision> shared_decisions() {
  const unsigned nvidia = kLinux | kWindows;
  return {
      {"torch-not-installed",
       {kEveryPlatform, "",
        [](Facts& f, const PlatformRecord& p) { f.python.envs = {env_on(p, "venv", true)}; }}},
      {"active-env-without-torch",
       {kEveryPlatform, "",
        [](Facts& f, const PlatformRecord& p) {
          auto with = env_on(p, "torch-env", false);
          with.torch = {torch_in(with, "2.11.0", std::nullopt)};
          f.python.envs = {env_on(p, "venv", true), with};
        }}},
      {"torch-cpu-only",
       {nvidia, "a Mac has no NVIDIA GPU: every torch there is the build it can use",
        with_venv_torch("2.11.0+cpu", std::nullopt)}},
      {"torch-duplicate-installs",
       {kEveryPlatform, "",
        with_venv_torch("2.11.0+cu130", "13.0", [](TorchInstall& t) { t.dist_info_count = 2; })}},
      {"torch-cuda-wheel-missing",
       {kLinux, kOnlyLinuxCuda,
        with_venv_torch("2.11.0+cu130", "13.0",
                        [](TorchInstall& t) {
                          t.nvidia_pins = {{"nvidia-cudnn-cu13", "9.19.0.56"}};
                        })}},
      {"torch-cuda-wheel-version-mismatch",
       {kLinux, kOnlyLinuxCuda,
        with_venv_torch("2.11.0+cu130", "13.0",
                        [](TorchInstall& t) {
                          t.nvidia_pins = {{"nvidia-cudnn-cu13", "9.19.0.56"}};
                          t.nvidia_installed = {{"nvidia-cudnn-cu13", "9.10.0.1"}};
                        })}},
      {"torch-needs-numpy1",
       {kEveryPlatform, "",
        [](Facts& f, const PlatformRecord& p) {
          with_venv_torch("2.2.2", std::nullopt)(f, p);
          f.python.envs[0].distributions = {{"numpy", "2.1.3"}, {"torch", "2.2.2"}};
        }}},
      {"python-not-the-active-env",
       {kLinux | kMacos,
        "Windows' source does not read which python.exe a shell runs first "
        "(windows-python-store-stub "
        "reads PATH's order there)",
        [](Facts& f, const PlatformRecord& p) {
          with_venv_torch("2.11.0", std::nullopt)(f, p);
          f.env.vars["PATH"] = "/opt/other/bin:" + f.python.envs[0].prefix + "/bin:/usr/bin";
          f.python.python_on_path = "/opt/other/bin/python", f.python.python_on_path_prefix = "/opt/other";
        }}},
      {"alloc-conf-invalid",
       {nvidia, "macOS has no CUDA allocator (MPS's variables are rules_macos's)",
        [](Facts& f, const PlatformRecord&) {
          f.env.vars["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segment:True";
        }}},
      // What NVML says of each GPU and CUDA_VISIBLE_DEVICES (RuleGroup::devices).
      {"compute-mode-prohibited",
       {nvidia, kNoCudaOnMac, with_nvml([](NvmlDevice& g) { g.compute_mode = 2; })}},
      {"compute-mode-exclusive",
       {nvidia, kNoCudaOnMac, with_nvml([](NvmlDevice& g) { g.compute_mode = 3; })}},
      {"mig-without-instances", {nvidia, kNoCudaOnMac, with_nvml([](NvmlDevice& g) {
                                   g.mig_current = 1, g.mig_pending = 1, g.mig_instances = 0;
                                 })}},
      {"mig-pending-reset", {nvidia, kNoCudaOnMac, with_nvml([](NvmlDevice& g) {
                               g.mig_current = 0, g.mig_pending = 1;
                             })}},
      {"gpu-memory-busy",
       {nvidia, kNoCudaOnMac, with_nvml([](NvmlDevice& g) { g.memory_used = 70ull << 30; })}},
      {"gpu-clocks-slowed",
       {nvidia, kNoCudaOnMac, with_nvml([](NvmlDevice& g) { g.clocks_event_reasons = 0x48; })}},
      {"cuda-visible-devices-hides-all",
       {nvidia, kNoCudaOnMac, with_variable("CUDA_VISIBLE_DEVICES", "5")}},
      {"cuda-visible-devices-invalid",
       {nvidia, kNoCudaOnMac, with_variable("CUDA_VISIBLE_DEVICES", "0,7")}},
      // The questions both NVIDIA platforms ask of their driver, each answered by its own source.
      {"no-nvidia-gpu",
       {nvidia, "a Mac's GPU is Apple's (MPS), never an NVIDIA one",
        [](Facts& f, const PlatformRecord&) { f.pci.nvidia.clear(); }}},
      {"driver-probe-hang", {nvidia, kNoCudaOnMac, with_driver_status(ProbeStatus::timeout)}},
      {"driver-probe-crash", {nvidia, kNoCudaOnMac, with_driver_status(ProbeStatus::crashed)}},
      {"cuda-init-failed",
       {nvidia, kNoCudaOnMac,
        [](Facts& f, const PlatformRecord& p) {
          with_driver_status(ProbeStatus::ok)(f, p);
          f.driver.init_result = 999;  // CUDA_ERROR_UNKNOWN
        }}},
      {"driver-too-old",
       {nvidia, kNoCudaOnMac,
        [](Facts& f, const PlatformRecord& p) {
          with_venv_torch("2.11.0+cu130", "13.0")(f, p);
          f.nvml.status = ProbeStatus::ok, f.nvml.driver_version = "470.256.02";
          f.kernel.nvidia_loaded = true, f.kernel.loaded_version = "470.256.02";
        }}},
      {"driver-does-not-drive-gpu",
       {nvidia, kNoCudaOnMac,
        [](Facts& f, const PlatformRecord& p) {
          with_driver_status(ProbeStatus::ok)(f, p);
          CudaDevice ada;
          ada.name = "NVIDIA GeForce RTX 4090", ada.cc_major = 8, ada.cc_minor = 9;
          f.driver.devices = {ada}, f.driver.device_count = 1;
          f.nvml.status = ProbeStatus::ok, f.nvml.driver_version = "470.256.02";
          f.kernel.nvidia_loaded = true, f.kernel.loaded_version = "470.256.02";
        }}},
      {"torch-library-damaged",
       {nvidia, "a Mac's torch libraries are Mach-O files its own rules read",
        [](Facts& f, const PlatformRecord& p) {
          with_venv_torch("2.11.0+cu130", "13.0")(f, p);
          if (p.platform == Platform::windows) {
            f.windows.emplace();
            TorchDllCheck check;
            check.torch_lib = f.python.envs[0].site_packages[0] + "\\torch\\lib";
            check.unreadable = {"c10.dll: not a PE image"};
            f.windows->torch_dlls = {check};
          } else {
            Resolution r;
            r.binary = f.python.envs[0].site_packages[0] + "/torch/lib/libtorch_cuda.so";
            r.error = r.binary + ": not an ELF file";
            f.binaries = {r};
          }
        }}},
  };
}

// The ids written for one platform: which, and why not the others.
std::map<std::string, Decision> single_platform_decisions() {
  std::map<std::string, Decision> rows;
  auto put = [&](unsigned where, const char* why, std::initializer_list<const char*> ids) {
    for (const char* id : ids) rows[id] = Decision{where, why, nullptr};
  };
  put(kLinux, kLinuxKernel,
      {"nouveau-loaded", "driver-not-loaded", "driver-reboot-required", "nvidia-uvm-missing", "device-node-permission",
       "libcuda-missing", "libcuda-stub", "libcuda-load-failed", "driver-symbol-missing", "driver-library-mismatch",
       "cuda-compat-on-unsupported-gpu", "fabric-manager-missing", "gpu-open-to-all-users", "gpu-count-mismatch",
       "gpu-bar-unassigned", "pcie-link-degraded", "hybrid-graphics", "gpu-presence-unknown", "cpu-oversubscribed",
       "shm-too-small", "wsl-windows-driver-missing", "wsl-linux-driver-installed", "container-without-gpu",
       "container-missing-compute-capability", "cuda-lib-unresolvable", "cuda-lib-shadowed", "cuda-lib-second-copy",
       "lib-unresolvable", "symbol-version-missing", "libtorch-cuda-not-linked", "arch-not-supported", "ptx-jit-only",
       "cuda-toolkit-torch-mismatch", "libtorch-abi-mismatch", "blas-reference", "dlready-module-missing",
       "library-symbol-missing", "wsl1-no-gpu"});
  put(kLinux, "PyTorch's CUDA allocator has expandable segments on Linux only", {"alloc-conf-conflict"});

  put(kLinux, kLinuxServices, {"secure-boot-blocks-driver", "cdi-spec-driver-mismatch", "socket-ifname-missing", "nccl-variables-set"});
  put(kLinux, kArm,
      {"jetson-needs-jetpack-wheel", "grace-needs-open-kernel-modules", "gb10-capability-warning-harmless",
       "library-misaligned-for-page-size", "jetson-wheel-libraries-missing", "jetson-torch-needs-numpy1",
       "jetson-container-without-nvidia-runtime", "orin-jetpack7-code-unverified", "jemalloc-on-large-pages",
       "hbm-node-page-cache", "triton-ptxas-too-old"});
  put(kWindows, kWindowsOwn,
      {"windows-nvcuda-missing", "windows-long-paths-disabled", "windows-python-store-stub", "windows-vc-runtime-missing",
       "windows-torch-dll-missing", "windows-python-architecture-mismatch", "windows-python-on-power-saving-gpu",
       "windows-gpu-watchdog"});
  put(kMacos, kMacOwn,
      {"macos-too-old-for-mps", "mac-torch-needs-newer-macos", "mac-python-under-rosetta", "mac-intel-no-new-torch",
       "mac-virtual-machine-no-mps", "torch-built-without-mps", "mac-no-metal-device-for-mps", "mac-python-no-torch-wheels",
       "mac-pip-externally-managed", "mac-cuda-index-configured", "mac-two-openmp-runtimes", "mps-memory-limit-off",
       "mps-watermark-invalid", "mps-cpu-fallback-on"});
  return rows;
}

const std::map<std::string, Decision>& decisions() {
  static const std::map<std::string, Decision> kTable = [] {
    auto all = shared_decisions();
    for (auto& [id, d] : single_platform_decisions()) all.emplace(id, d);
    return all;
  }();
  return kTable;
}

bool fires(const Report& r, const std::string& id) {
  for (const auto& x : r.findings)
    if (x.id == id) return true;
  return false;
}

int platform_count(unsigned bits) { return __builtin_popcount(bits); }

// Every id of the catalogue has a row; only an id of one platform goes without a scenario here.
TEST(FindingsByPlatform, EveryCatalogueIdIsPlacedOnItsPlatforms) {
  for (const auto& e : catalogue()) {
    auto row = decisions().find(e.id);
    ASSERT_NE(row, decisions().end()) << e.id << " has no row: say on which platforms it can fire";
    const Decision& d = row->second;
    if (d.platforms != kEveryPlatform) {
      EXPECT_FALSE(d.elsewhere.empty()) << e.id << " is left out somewhere without a reason";
    }
    if (platform_count(d.platforms) > 1) {
      EXPECT_TRUE(d.scenario) << e.id << " can fire on several platforms: give a scenario";
    }
  }
  EXPECT_EQ(decisions().size(), catalogue().size()) << "a row names an id the catalogue does not have";
}

TEST(FindingsByPlatform, EachIdWithAScenarioFiresOnEveryPlatformItCanApplyOn) {
  std::map<std::string, std::vector<std::string>> fired;  // platform -> ids
  for (const auto& p : platform_records()) {
    for (const auto& [id, decision] : decisions()) {
      if (!(decision.platforms & p.bit) || !decision.scenario) continue;
      Facts f = machine_of(p);
      decision.scenario(f, p);
      auto report = diagnose(f);
      EXPECT_TRUE(fires(report, id)) << id << " has no scenario that fires on " << p.title;
      if (fires(report, id)) fired[std::string(p.name)].push_back(id);
      // The fix is in the platform's words: a Linux path or shell never in a Windows fix, nor the reverse.
      for (const auto& x : report.findings)
        if (x.id == id)
          for (const auto& line : x.fix) {
            if (p.platform == Platform::windows) {
              EXPECT_EQ(line.find("/bin/"), std::string::npos) << id << ": " << line;
              EXPECT_NE(line.rfind("export ", 0), 0u) << id << ": " << line;
              EXPECT_NE(line.rfind("unset ", 0), 0u) << id << ": " << line;
              EXPECT_EQ(line.find("sudo "), std::string::npos) << id << ": " << line;
            } else {
              EXPECT_EQ(line.find("\\Scripts\\"), std::string::npos) << id << ": " << line;
              EXPECT_EQ(line.find("$env:"), std::string::npos) << id << ": " << line;
            }
          }
    }
  }
  // The per-platform list of ids that fire, shared and single (the latter from their platform's tests).
  for (const auto& p : platform_records()) {
    std::vector<std::string> own;
    for (const auto& [id, decision] : decisions())
      if (decision.platforms == p.bit) own.push_back(id);
    std::printf("%s, shared (fired here): %s\n%s, its own (scenario tests of %s): %s\n", std::string(p.name).c_str(),
                join(fired[std::string(p.name)], ", ").c_str(), std::string(p.name).c_str(), std::string(p.title).c_str(),
                join(own, ", ").c_str());
  }
}

// An id a scenario makes fire on a platform the table does not name is a rule firing by accident.
TEST(FindingsByPlatform, NoScenarioFiresAnIdWhereTheTableSaysItCannot) {
  for (const auto& p : platform_records())
    for (const auto& [id, decision] : decisions()) {
      if (!decision.scenario || !(decision.platforms & p.bit)) continue;
      Facts f = machine_of(p);
      decision.scenario(f, p);
      for (const auto& x : diagnose(f).findings) {
        auto row = decisions().find(x.id);
        ASSERT_NE(row, decisions().end()) << x.id;
        EXPECT_TRUE(row->second.platforms & p.bit) << x.id << " fired on " << p.title << " (scenario of " << id << ")";
      }
    }
}

}  // namespace
}  // namespace dlready::test
