// Golden outputs of the doctor: text, JSON and Markdown of fixture machines, compared byte for
// byte with tests/golden/<scenario>.{txt,json,md}. A change of wording or layout shows up here as a
// diff to review; after an intended change, regenerate with
//   DLREADY_UPDATE_GOLDEN=1 build/release/tests/dlready_tests --gtest_filter='Golden*'
// (the way hwloc's tests regenerate their expected outputs) and commit the new files.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>

#include "diagnose/rules.hpp"
#include "fixture.hpp"
#include "mac_fixture.hpp"
#include "report/render.hpp"

namespace dlready::test {
namespace {

const char* kGtx1080Ti = "devices=1\ndev0.name=NVIDIA GeForce GTX 1080 Ti\ndev0.cc=6.1\ncuda.driver_version=13000\n";

// What differs between two runs of the same machine: the fixture's temporary root, and timings.
std::string normalised(std::string out, const std::string& root) {
  for (size_t at; (at = out.find(root)) != std::string::npos;) out.replace(at, root.size(), "<root>");
  out = std::regex_replace(out, std::regex(R"("elapsed_ms": [0-9.]+)"), "\"elapsed_ms\": 0");
  out = std::regex_replace(out, std::regex(R"(in [0-9.]+ ms)"), "in N ms");
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void check_golden(const std::string& name, const std::function<void(Fixture&)>& build) {
  Fixture f;
  build(f);
  auto facts = f.facts();
  Report r = diagnose(facts);
  const std::pair<std::string, std::string> outputs[] = {
      {"txt", render_text(facts, r, {false})},
      {"json", render_json(facts, r)},
      {"md", render_markdown(facts, r)},
  };
  for (const auto& [ext, raw] : outputs) {
    std::string got = normalised(raw, f.root);
    std::string path = std::string(DLREADY_SOURCE_DIR) + "/tests/golden/" + name + "." + ext;
    if (std::getenv("DLREADY_UPDATE_GOLDEN")) {
      std::ofstream(path, std::ios::binary) << got;
      continue;
    }
    std::string want = read_file(path);
    EXPECT_EQ(got, want) << path << " differs; if the change is intended, regenerate with DLREADY_UPDATE_GOLDEN=1";
  }
}

TEST(Golden, HealthyGpuMachine) { check_golden("healthy-gpu", healthy_gpu_machine); }

// Macs, replayed from their fixture roots (the macOS source of facts, on this Linux build).
TEST(Golden, HealthyMacMpsReady) {
  check_golden("mac-healthy", [](Fixture& f) {
    Mac m;
    m.metal = nlohmann::json{{"devices", {{{"name", "Apple M3"}, {"low_power", false}, {"mac2", true}}}},
                             {"mpsgraph_gates", {{"12.3", true}, {"13.0", true}, {"14.0", true}}}};
    write_mac(f, m);
  });
}

TEST(Golden, MacOnMacos13WithTorch211AndTwoOpenmps) {
  check_golden("mac-macos13-two-openmp", [](Fixture& f) {
    Mac m;
    m.version = "13.6.7", m.build = "22G720", m.darwin = "22.6.0";
    const std::string sp = "/opt/homebrew/lib/python3.12/site-packages";
    m.files = {{sp + "/torch/lib/libomp.dylib", "omp"}, {sp + "/sklearn/.dylibs/libomp.dylib", "omp2"}};
    m.env = {{"PYTORCH_ENABLE_MPS_FALLBACK", "1"}};
    write_mac(f, m);
  });
}

TEST(Golden, NoNvidiaGpu) {
  check_golden("no-gpu", [](Fixture& f) {
    add_base_system(f);
    add_pci_function(f, "0000:00:02.0", "8086", "4680", "030000", "i915");
    add_torch_venv(f, "/home/alice/venv", TorchSpec{});
  });
}

TEST(Golden, DriverTooOldForWheel) {
  check_golden("driver-too-old", [](Fixture& f) {
    healthy_gpu_machine(f);
    replace_driver(f, "470.82.01", "devices=1\ndev0.cc=8.6\ncuda.driver_version=11040\nnvml.driver=470.82.01\n");
    add_torch_venv(f, "/home/alice/venv", TorchSpec{"2.3.1+cu121", "12.1", {}, {}});
  });
}

TEST(Golden, ArchNotSupported) {
  check_golden("arch-not-supported", [](Fixture& f) {
    healthy_gpu_machine(f);
    write_driver_conf(f, kGtx1080Ti);
  });
}

TEST(Golden, LibcudaMissingAndTorchCpuOnly) {
  check_golden("libcuda-missing-torch-cpu", [](Fixture& f) {
    healthy_gpu_machine(f);
    f.remove("/usr/lib/x86_64-linux-gnu/libcuda.so.1");
    add_torch_venv(f, "/home/alice/venv", TorchSpec{"2.11.0+cpu", "", {}, {}});
  });
}

TEST(Golden, DriverProbeCrashAndAllocConf) {
  check_golden("probe-crash-alloc-conf", [](Fixture& f) {
    healthy_gpu_machine(f);
    write_driver_conf(f, "devices=1\ndev0.name=NVIDIA H100 80GB HBM3\ndev0.cc=9.0\ncuda.driver_version=13000\n"
                         "nvml.behaviour=crash\n");
    f.env["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments=true";
  });
}

}  // namespace
}  // namespace dlready::test
