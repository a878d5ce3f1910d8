// Linux on Arm (issue 49), the platform's own failures: a Jetson wheel for another JetPack, NumPy 2
// beside NVIDIA's JetPack torch, a Jetson container without NVIDIA's runtime, Orin on JetPack 7.2,
// jemalloc and GH200's HBM node, Triton's ptxas on GB10, an R575 driver under a CUDA 13 torch, and
// GB10's memory that NVML does not report. Each finding on its fixture machine and on no other.
#include <gtest/gtest.h>

#include <string>

#include "arm_fixture.hpp"
#include "core/text.hpp"
#include "diagnose/rules.hpp"
#include "report/render.hpp"

namespace dlready::test {
namespace {


const Finding* find(const Report& r, const std::string& id) {
  for (const auto& x : r.findings)
    if (x.id == id) return &x;
  return nullptr;
}

TEST(ArmPlatform, AJetpack60WheelOn62NamesTheLibraryAndTheWheelForThisJetpack) {
  Fixture f;
  orin(f, jetpack60_wheel());
  jetpack62(f);
  jetpack60_libraries(f);
  auto r = f.report();
  const Finding* x = find(r, "jetson-wheel-libraries-missing");
  ASSERT_TRUE(x) << finding_ids(r);
  std::string all = join(x->evidence, "\n");
  EXPECT_NE(all.find("JetPack 6.2"), std::string::npos) << all;
  EXPECT_NE(all.find("libcudnn.so.8, needed by"), std::string::npos) << all;
  EXPECT_NE(all.find("JetPack 5 or 6.0"), std::string::npos) << all;
  EXPECT_EQ(all.find("libcudart.so.12"), std::string::npos) << "it resolves: " << all;
  EXPECT_NE(x->fix.at(0).find("https://pypi.jetson-ai-lab.io/jp6/cu126"), std::string::npos) << x->fix[0];
  EXPECT_FALSE(find(r, "cuda-lib-unresolvable")) << "PyPI's CUDA wheels are the wrong advice on a Jetson";
  EXPECT_FALSE(find(r, "jetson-needs-jetpack-wheel")) << finding_ids(r);
  EXPECT_EQ(exit_status(r), 1);
  // The same wheel on JetPack 6.0, which has cuDNN 8: nothing missing.
  f.write("/usr/lib/aarch64-linux-gnu/libcudnn.so.8", aarch64_library({}));
  EXPECT_FALSE(find(f.report(), "jetson-wheel-libraries-missing"));
}

TEST(ArmPlatform, ACusparseltWheelIsOfferedTheLibraryToo) {
  Fixture f;
  orin(f, jetpack60_wheel());
  jetpack62(f);
  jetpack60_libraries(f);
  f.write("/usr/lib/aarch64-linux-gnu/libcudnn.so.8", aarch64_library({}));
  f.write(std::string(kSp) + "/torch/lib/libtorch_cuda.so",
          aarch64_library({"libc10_cuda.so", "libcudart.so.12", "libcusparseLt.so.0"}, "$ORIGIN"));
  auto r = f.report();
  const Finding* x = find(r, "jetson-wheel-libraries-missing");
  ASSERT_TRUE(x) << finding_ids(r);
  ASSERT_EQ(x->fix.size(), 2u);
  EXPECT_NE(x->fix[1].find("cuSPARSELt"), std::string::npos) << x->fix[1];
}

TEST(ArmPlatform, NumPy2BesideNvidiasJetpackTorchIsNamed) {
  Fixture f;
  orin(f, jetpack60_wheel());
  jetpack62(f);
  f.write(std::string(kSp) + "/numpy-2.1.3.dist-info/METADATA", "Name: numpy\nVersion: 2.1.3\n");
  auto r = f.report();
  const Finding* x = find(r, "jetson-torch-needs-numpy1");
  ASSERT_TRUE(x) << finding_ids(r);
  EXPECT_EQ(x->fix.at(0), "/home/alice/venv/bin/python -m pip install \"numpy<2\"");
  f.remove(std::string(kSp) + "/numpy-2.1.3.dist-info");
  f.write(std::string(kSp) + "/numpy-1.26.4.dist-info/METADATA", "Name: numpy\nVersion: 1.26.4\n");
  EXPECT_FALSE(find(f.report(), "jetson-torch-needs-numpy1"));
  // The Jetson AI Lab's builds (2.8.0, no NVIDIA local version) are built against NumPy 2.
  Fixture lab;
  TorchSpec t;
  t.version = "2.8.0", t.cuda = "12.6", t.pins = {}, t.installed = {};
  orin(lab, t);
  lab.write(std::string(kSp) + "/numpy-2.1.3.dist-info/METADATA", "Name: numpy\nVersion: 2.1.3\n");
  EXPECT_FALSE(find(lab.report(), "jetson-torch-needs-numpy1"));
}

TEST(ArmPlatform, AJetsonContainerWithoutNvidiasRuntimeIsNamed) {
  Fixture f;
  orin(f, jetpack60_wheel());
  f.write("/.dockerenv", "");
  auto r = f.report();
  const Finding* x = find(r, "jetson-container-without-nvidia-runtime");
  ASSERT_TRUE(x) << finding_ids(r);
  EXPECT_NE(x->fix.at(0).find("--runtime nvidia"), std::string::npos);
  // The runtime mounts L4T's libcuda and the GPU's nodes.
  f.write("/usr/lib/aarch64-linux-gnu/libcuda.so.1", aarch64_library({}));
  f.write("/dev/nvmap", "");
  f.write("/dev/nvhost-ctrl-gpu", "");
  EXPECT_FALSE(find(f.report(), "jetson-container-without-nvidia-runtime"));
  Fixture host;  // the same Jetson outside a container
  orin(host, jetpack60_wheel());
  EXPECT_FALSE(find(host.report(), "jetson-container-without-nvidia-runtime"));
}

TEST(ArmPlatform, OrinOnJetpack72SaysItCannotBeSure) {
  Fixture f;
  orin(f, TorchSpec{});  // PyPI's 2.11 (cu130): SASS 8.0, 9.0, 10.0, 10.3, 11.0, 12.0, 12.1; no sm_87
  f.write("/etc/nv_tegra_release", "# R39 (release), REVISION: 0.0, GCID: 42000000, BOARD: generic, EABI: aarch64\n");
  auto r = f.report();
  const Finding* x = find(r, "orin-jetpack7-code-unverified");
  ASSERT_TRUE(x) << finding_ids(r);
  EXPECT_NE(x->fix.at(0).find("cannot be sure"), std::string::npos) << x->fix[0];
  EXPECT_FALSE(find(r, "arch-not-supported")) << finding_ids(r);
  EXPECT_FALSE(find(r, "jetson-needs-jetpack-wheel")) << "JetPack 7.2 runs SBSA wheels on Orin";
  // On JetPack 6.1 the same wheel is the wrong build outright.
  Fixture jp61;
  orin(jp61, TorchSpec{});
  auto r61 = jp61.report();
  EXPECT_FALSE(find(r61, "orin-jetpack7-code-unverified"));
  EXPECT_TRUE(find(r61, "jetson-needs-jetpack-wheel")) << finding_ids(r61);
}

TEST(ArmPlatform, BundledJemallocOnA64kKernelIsNamedAsAPossibleCause) {
  Fixture f;
  gh200(f, TorchSpec{});
  f.write(std::string(kSp) + "/fastpkg.libs/libjemalloc-3a9c1e.so.2", elf_with_load_align(0x10000));
  auto r = f.report();
  const Finding* x = find(r, "jemalloc-on-large-pages");
  ASSERT_TRUE(x) << finding_ids(r);
  EXPECT_EQ(x->severity, Severity::info);
  EXPECT_NE(join(x->evidence, "\n").find("fastpkg.libs/libjemalloc-3a9c1e.so.2"), std::string::npos);
  EXPECT_FALSE(find(r, "library-misaligned-for-page-size")) << "it is 64K-aligned";
  f.write("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "2097152\n");  // 4K pages
  EXPECT_FALSE(find(f.report(), "jemalloc-on-large-pages"));
}

void hbm_node(Fixture& f, const std::string& file_pages_kb) {
  f.write("/sys/devices/system/node/node0/cpulist", "0-71\n");
  f.write("/sys/devices/system/node/node0/meminfo", "Node 0 MemTotal:       503316480 kB\nNode 0 FilePages:  1048576 kB\n");
  f.write("/sys/devices/system/node/node1/cpulist", "\n");
  f.write("/sys/devices/system/node/node1/meminfo",
          "Node 1 MemTotal:       100663296 kB\nNode 1 MemFree:  1048576 kB\nNode 1 FilePages:  " + file_pages_kb + " kB\n");
}

TEST(ArmPlatform, PageCacheInGh200sHbmNodeOnR550IsNamed) {
  const std::string conf = "devices=1\ndev0.name=NVIDIA GH200 480GB\ndev0.cc=9.0\ncuda.driver_version=12040\n";
  TorchSpec cu124;
  cu124.version = "2.6.0+cu124", cu124.cuda = "12.4", cu124.pins = {}, cu124.installed = {};
  Fixture f;
  gh200(f, cu124, "550.54.15", conf);
  hbm_node(f, "83886080");  // 80 of its 96 GiB
  auto facts = f.facts();
  ASSERT_TRUE(facts.arm);
  ASSERT_EQ(facts.arm->memory_only_nodes.size(), 1u);
  EXPECT_EQ(facts.arm->memory_only_nodes[0].node, 1);
  auto r = f.report();
  const Finding* x = find(r, "hbm-node-page-cache");
  ASSERT_TRUE(x) << finding_ids(r);
  EXPECT_NE(x->evidence.at(0).find("80.0 GiB of its 96.0 GiB"), std::string::npos) << x->evidence[0];
  Fixture little;
  gh200(little, cu124, "550.54.15", conf);
  hbm_node(little, "1048576");
  EXPECT_FALSE(find(little.report(), "hbm-node-page-cache"));
  Fixture r580;
  gh200(r580, TorchSpec{});
  hbm_node(r580, "83886080");
  EXPECT_FALSE(find(r580.report(), "hbm-node-page-cache")) << "fixed from R570";
}

// A ptxas-shaped file: the release string where ptxas keeps it, past the first window of the scan.
std::string fake_ptxas(const std::string& release) {
  std::string bytes = "\x7f" "ELF";
  bytes.resize(3 << 20, '\0');
  bytes += "Cuda compilation tools, release %d.%d, ";
  bytes += std::string("Cuda compilation tools, release ") + release + ", V" + release + ".93";
  bytes.resize(bytes.size() + 4096, '\0');
  return bytes;
}

// GB10 with torch 2.10 cu128 and Triton's own ptxas from CUDA 12.8 (no sm_121a in it).
void gb10_with_tritons_ptxas(Fixture& f) {
  TorchSpec cu128;
  cu128.version = "2.10.0+cu128", cu128.cuda = "12.8", cu128.pins = {}, cu128.installed = {};
  gb10(f, cu128);
  f.write(std::string(kSp) + "/triton/__init__.py", "");
  f.write(std::string(kSp) + "/triton/backends/nvidia/bin/ptxas", fake_ptxas("12.8"), 0755);
}

TEST(ArmPlatform, TritonsCuda128PtxasOnGb10IsNamed) {
  Fixture f;
  gb10_with_tritons_ptxas(f);
  auto facts = f.facts();
  ASSERT_TRUE(facts.arm);
  ASSERT_EQ(facts.arm->triton_ptxas.size(), 1u);
  EXPECT_EQ(facts.arm->triton_ptxas[0].cuda_release, "12.8");
  auto r = f.report();
  const Finding* x = find(r, "triton-ptxas-too-old");
  ASSERT_TRUE(x) << finding_ids(r);
  EXPECT_NE(x->evidence.at(0).find("CUDA 12.9"), std::string::npos) << x->evidence[0];
  EXPECT_NE(x->fix.at(0).find("TRITON_PTXAS_PATH="), std::string::npos);
  EXPECT_EQ(exit_status(r), 0) << "a warning: eager mode works";
  // TRITON_PTXAS_PATH to a CUDA 13 ptxas.
  f.write("/usr/local/cuda-13.0/bin/ptxas", fake_ptxas("13.0"), 0755);
  f.env["TRITON_PTXAS_PATH"] = "/usr/local/cuda-13.0/bin/ptxas";
  EXPECT_FALSE(find(f.report(), "triton-ptxas-too-old"));
  // torch 2.11 ships its own CUDA 13 ptxas, which its inductor hands to Triton.
  Fixture healthy;
  gb10(healthy, TorchSpec{});
  healthy.write(std::string(kSp) + "/triton/__init__.py", "");
  healthy.write(std::string(kSp) + "/triton/backends/nvidia/bin/ptxas", fake_ptxas("12.8"), 0755);
  healthy.write(std::string(kSp) + "/torch/bin/ptxas", fake_ptxas("13.0"), 0755);
  auto rh = healthy.report();
  EXPECT_FALSE(find(rh, "triton-ptxas-too-old")) << finding_ids(rh);
  EXPECT_EQ(exit_status(rh, Severity::warning), 0) << finding_ids(rh);
}

TEST(ArmPlatform, A575DriverUnderPypisCuda13TorchIsTooOld) {
  Fixture f;
  gh200(f, TorchSpec{}, "575.57.08", "devices=1\ndev0.name=NVIDIA GH200 480GB\ndev0.cc=9.0\ncuda.driver_version=12090\n");
  auto r = f.report();
  const Finding* x = find(r, "driver-too-old");
  ASSERT_TRUE(x) << finding_ids(r);
  std::string fix = join(x->fix, "\n");
  EXPECT_NE(fix.find("580"), std::string::npos) << fix;
  EXPECT_NE(fix.find("whl/cu12"), std::string::npos) << "a CUDA 12 build runs on R575: " << fix;
  EXPECT_EQ(exit_status(r), 1);
}

TEST(ArmPlatform, Gb10sMemoryIsTheMachinesWhenNvmlDoesNotSay) {
  Fixture f;
  gb10(f, TorchSpec{});
  f.write("/proc/meminfo", "MemTotal:       128450560 kB\nMemFree:        100000000 kB\nSwapTotal: 0 kB\n");
  write_driver_conf(f, "devices=1\ndev0.name=NVIDIA GB10\ndev0.cc=12.1\ncuda.driver_version=13000\ndev0.nvml_memory_unsupported=1\n",
                    "/usr/lib/aarch64-linux-gnu");
  auto facts = f.facts();
  ASSERT_FALSE(facts.nvml.devices.empty());
  EXPECT_FALSE(facts.nvml.devices[0].memory_total) << "NVML: NOT_SUPPORTED";
  auto r = diagnose(facts);
  EXPECT_EQ(exit_status(r, Severity::warning), 0) << finding_ids(r);
  std::string text = render_text(facts, r, TextStyle{});
  EXPECT_NE(text.find("122.5 GiB unified memory (the machine's, /proc/meminfo)"), std::string::npos) << text;
}


// A capture keeps the 64 bytes of ptxas that answer, where they were, not the tens of megabytes
// around them; its replay finds the same.
TEST(ArmPlatform, ACapturedGb10KeepsPtxassAnswerNotPtxas) {
  Fixture f;
  gb10_with_tritons_ptxas(f);
  Fixture out;
  std::string capture = out.root + "/gb10";
  std::string env = f.env_command();
  auto run = run_command(env + " " + DLREADY_BINARY + " capture --load-root-drivers --root " + f.root + " " + capture + " 2>&1");
  ASSERT_EQ(run.status, 0) << run.out;
  auto kept = run_command("du -k " + capture + std::string(kSp) + "/triton/backends/nvidia/bin/ptxas | cut -f1");
  EXPECT_LT(std::stoi("0" + trim(kept.out)), 64) << "kilobytes on disk: " << kept.out;
  auto replay = run_command(env + " " + DLREADY_BINARY + " doctor --json --root " + capture + " 2>/dev/null");
  EXPECT_NE(replay.out.find("\"triton-ptxas-too-old\""), std::string::npos) << replay.out.substr(0, 600);
}

}  // namespace
}  // namespace dlready::test
