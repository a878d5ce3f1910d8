// One scenario per row of the tutorials' troubleshooting tables:
// S0 (000_*.txt) section 九.1 "常见错误及解决方法" and S1 (001_*.txt) "常见陷阱与解决方案".
#include <gtest/gtest.h>

#include "fixture.hpp"

namespace dlready::test {
namespace {

// S0 九.1 row 1: "CUDA版本不匹配 — RuntimeError: CUDA version 11.2 is not supported".
TEST(SeedS0, CudaVersionMismatch) {
  Fixture f;
  healthy_gpu_machine(f);
  replace_driver(f, "460.106.00", "devices=1\ndev0.cc=7.5\ncuda.driver_version=11020\n");
  add_torch_venv(f, "/home/alice/venv", TorchSpec{"2.1.2+cu121", "12.1", {}, {}});
  auto r = f.report();
  EXPECT_TRUE(has_finding(r, "driver-too-old")) << finding_ids(r);
  EXPECT_EQ(r.verdict.cuda_usable, false);
  EXPECT_EQ(exit_status(r), 1);
}

// S0 九.1 row 2: "显存不足 — CUDA out of memory": memory already taken by other processes.
TEST(SeedS0, OutOfMemory) {
  Fixture f;
  healthy_gpu_machine(f);
  write_driver_conf(f, "devices=1\ndev0.cc=9.0\ndev0.memory_mib=81920\ndev0.memory_used_mib=79000\n");
  auto r = f.report();
  EXPECT_TRUE(has_finding(r, "gpu-memory-busy")) << finding_ids(r);
  EXPECT_EQ(r.verdict.cuda_usable, true) << "usable, but crowded";
  EXPECT_EQ(exit_status(r), 0);
  EXPECT_EQ(exit_status(r, Severity::warning), 1);
}

// S0 九.1 row 3: "ModuleNotFoundError: No module named 'torch'".
TEST(SeedS0, NoModuleNamedTorch) {
  Fixture f;
  healthy_gpu_machine(f);
  f.remove("/home/alice/venv/lib/python3.11/site-packages");
  f.mkdir("/home/alice/venv/lib/python3.11/site-packages");
  auto r = f.report();
  EXPECT_TRUE(has_finding(r, "torch-not-installed")) << finding_ids(r);
  EXPECT_TRUE(r.verdict.torch.empty());
}

// S0 九.1 row 4: "设备未检测到 — CUDA available: False → 重新安装驱动".
TEST(SeedS0, DeviceNotDetected) {
  Fixture f;
  add_base_system(f);
  add_nvidia_gpu(f, "0000:01:00.0", "2684", "");
  add_torch_venv(f, "/home/alice/venv", TorchSpec{});
  auto r = f.report();
  EXPECT_TRUE(has_finding(r, "driver-not-loaded")) << finding_ids(r);
  EXPECT_EQ(r.verdict.cuda_usable, false);
  EXPECT_FALSE(r.verdict.torch.at(0).cuda_available);
  EXPECT_EQ(exit_status(r), 1);
}

// S1 row 1: "is_available() 为 False — 驱动版本过低或未加载 → 更新驱动至 535+，重启".
TEST(SeedS1, DriverTooOldOrNotLoaded) {
  Fixture f;
  healthy_gpu_machine(f);
  replace_driver(f, "515.105.01", "devices=1\ndev0.cc=8.9\ncuda.driver_version=11070\n");
  add_torch_venv(f, "/home/alice/venv", TorchSpec{"2.1.2+cu121", "12.1", {}, {}});
  auto r = f.report();
  EXPECT_TRUE(has_finding(r, "driver-too-old")) << finding_ids(r);
  EXPECT_EQ(exit_status(r), 1);
}

// S1 row 2: "libcudart.so.12 找不到 — 动态库路径未包含": the CUDA runtime wheel torch needs is absent.
TEST(SeedS1, LibcudartNotFound) {
  Fixture f;
  healthy_gpu_machine(f);
  TorchSpec spec{"2.5.1+cu121", "12.1", {{"nvidia-cuda-runtime-cu12", "12.1.105"}}, {}};
  add_torch_venv(f, "/home/alice/venv", spec);
  auto r = f.report();
  EXPECT_TRUE(has_finding(r, "torch-cuda-wheel-missing")) << finding_ids(r);
  EXPECT_EQ(exit_status(r), 1);
}

// S1 row 3: "实际使用的是 CUDA 11.8 — pip 安装了错误 wheel → 明确指定 --index-url".
TEST(SeedS1, WrongWheelVariant) {
  Fixture f;
  healthy_gpu_machine(f);
  add_torch_venv(f, "/home/alice/venv", TorchSpec{"2.7.1+cu118", "11.8", {}, {}});
  auto r = f.report();
  ASSERT_EQ(r.verdict.torch.size(), 1u);
  EXPECT_EQ(r.verdict.torch[0].cuda, "11.8") << "the doctor shows which CUDA the wheel really uses";
  // It runs (cu118 has sm_90 code and driver 580 runs CUDA 11.8): nothing to reinstall (issue 50, item 10).
  EXPECT_TRUE(r.verdict.torch[0].cuda_available) << r.verdict.torch[0].reason;
  EXPECT_TRUE(r.recommendations.empty());
}

// S1 row 4: "WSL2 中无法检测GPU — Windows端未安装WSL2专用驱动".
TEST(SeedS1, WslNoGpu) {
  Fixture f;
  add_base_system(f, "ubuntu");
  f.write("/proc/version", "Linux version 5.15.153.1-microsoft-standard-WSL2\n");
  f.write("/dev/dxg", "", 0666);  // bridge present, Windows driver libraries absent
  auto r = f.report();
  EXPECT_TRUE(has_finding(r, "wsl-windows-driver-missing")) << finding_ids(r);
  EXPECT_EQ(exit_status(r), 1);
}

// S1 row 5: "多卡环境下只识别一张卡 — BIOS: Above 4G Decoding / Resizable BAR".
TEST(SeedS1, OnlyOneOfTwoGpus) {
  Fixture f;
  healthy_gpu_machine(f);
  add_nvidia_gpu(f, "0000:02:00.0", "2330", "");
  f.write("/sys/devices/pci0000:00/0000:02:00.0/resource",
          "0x00000000fa000000 0x00000000faffffff 0x0000000000040200\n0x0 0x0 0x0\n");
  auto r = f.report();
  EXPECT_TRUE(has_finding(r, "gpu-count-mismatch")) << finding_ids(r);
  bool bios = false;
  for (const auto& x : r.findings)
    for (const auto& c : x.fix) bios |= c.find("Above 4G decoding") != std::string::npos;
  EXPECT_TRUE(bios);
}

// S1 特别提醒: laptops that run on the integrated GPU.
TEST(SeedS1, HybridLaptop) {
  Fixture f;
  healthy_gpu_machine(f);
  add_pci_function(f, "0000:00:02.0", "8086", "4680", "030000", "i915");
  EXPECT_TRUE(has_finding(f.report(), "hybrid-graphics"));
}

}  // namespace
}  // namespace dlready::test
