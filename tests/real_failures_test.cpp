// What real machines from public bug reports show (issue 59): each capability through the `dlready`
// binary on a fixture built the way such a machine is (dist-info folders pip writes, conda-meta JSON
// conda writes, ELF files with real symbol tables).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/text.hpp"
#include "fixture.hpp"

namespace dlready::test {
namespace {

const char* const kSite = "/home/alice/venv/lib/python3.11/site-packages";

// The doctor's JSON report of the fixture, as the user's shell would run it.
nlohmann::json doctor_json(const Fixture& f, const std::string& flags = "") {
  auto run = run_command(f.env_command() + " " + DLREADY_BINARY + " doctor --no-cache --load-root-drivers --root " +
                         f.root + " " + flags + " --json 2>/dev/null");
  auto j = nlohmann::json::parse(run.out, nullptr, false);
  EXPECT_TRUE(j.is_object()) << run.out.substr(0, 800);
  return j.is_object() ? j : nlohmann::json::object();
}

const nlohmann::json* finding(const nlohmann::json& report, const std::string& id) {
  if (!report.contains("findings")) return nullptr;
  for (const auto& x : report.at("findings"))
    if (x.value("id", "") == id) return &x;
  return nullptr;
}

std::string lines_of(const nlohmann::json& x, const char* key) {
  std::string out;
  for (const auto& l : x.at(key)) out += l.get<std::string>() + "\n";
  return out;
}

// Item 3: NumPy 2 beside a torch built for NumPy 1 is named on every platform, not only on a
// Jetson (pytorch#107302 and its duplicates); a torch built for NumPy 2 is left alone.
TEST(RealFailures, NumPy2BesideATorchBuiltForNumPy1) {
  Fixture f;
  healthy_gpu_machine(f);
  add_torch_venv(f, "/home/alice/venv", TorchSpec{"2.2.2+cu121", "12.1", {}, {}});
  f.mkdir(std::string(kSite) + "/numpy-2.0.1.dist-info");
  f.write(std::string(kSite) + "/numpy-2.0.1.dist-info/METADATA", "Metadata-Version: 2.1\nName: numpy\nVersion: 2.0.1\n");
  auto report = doctor_json(f);
  const auto* x = finding(report, "torch-needs-numpy1");
  ASSERT_NE(x, nullptr) << report.dump(1).substr(0, 1500);
  EXPECT_EQ(x->value("severity", ""), "error");
  EXPECT_NE(lines_of(*x, "evidence").find("numpy 2.0.1"), std::string::npos) << x->dump(1);
  EXPECT_NE(lines_of(*x, "fix").find("/home/alice/venv/bin/python -m pip install \"numpy<2\""), std::string::npos) << x->dump(1);
  // torch 2.3 and later are built against NumPy 2.
  f.remove("/home/alice/venv");
  add_torch_venv(f, "/home/alice/venv", TorchSpec{"2.3.1+cu121", "12.1", {}, {}});
  f.mkdir(std::string(kSite) + "/numpy-2.0.1.dist-info");
  EXPECT_EQ(finding(doctor_json(f), "torch-needs-numpy1"), nullptr);
}

}  // namespace
}  // namespace dlready::test
