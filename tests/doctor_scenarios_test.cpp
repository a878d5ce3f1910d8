// One scenario per finding id: a fixture machine broken in one place, asserting the finding, the
// verdict and the exit status. The healthy machine must produce no error at all.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <set>
#include <stdexcept>

#include <map>

#include "diagnose/catalogue.hpp"
#include "diagnose/rules.hpp"
#include "core/text.hpp"
#include "fixture.hpp"
#include "report/render.hpp"

namespace dlready::test {
namespace {

const char* kH100 = "devices=1\ndev0.name=NVIDIA H100 80GB HBM3\ndev0.cc=9.0\ncuda.driver_version=13000\n";

const Finding& get(const Report& r, const std::string& id) {
  for (const auto& x : r.findings)
    if (x.id == id) return x;
  throw std::runtime_error("no finding " + id + " in " + finding_ids(r));
}

void expect_finding(const Report& r, const std::string& id, bool cuda_usable_false = true) {
  EXPECT_TRUE(has_finding(r, id)) << "expected " << id << ", got " << finding_ids(r);
  const auto& e = catalogue_entry(id);
  if (e.severity == Severity::error) {
    EXPECT_EQ(exit_status(r), 1);
    if (cuda_usable_false) {
      EXPECT_EQ(r.verdict.cuda_usable, false);
    }
  }
  for (const auto& x : r.findings) {
    if (x.id != id) continue;
    EXPECT_FALSE(x.evidence.empty()) << id;
    EXPECT_FALSE(x.fix.empty()) << id;
  }
}

TEST(Scenario, HealthyMachineIsReady) {
  Fixture f;
  healthy_gpu_machine(f);
  auto facts = f.facts();
  EXPECT_EQ(facts.driver.status, ProbeStatus::ok) << facts.driver.detail;
  ASSERT_EQ(facts.driver.devices.size(), 1u);
  EXPECT_EQ(facts.driver.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(facts.driver.devices[0].cc_major, 9);
  EXPECT_EQ(facts.nvml.driver_version, "580.65.06");
  EXPECT_EQ(facts.kernel.module_file_version, "580.65.06");
  ASSERT_EQ(facts.pci.nvidia.size(), 1u);
  EXPECT_EQ(facts.pci.nvidia[0].name, "GH100 [H100 SXM5 80GB]");
  auto r = f.report();
  EXPECT_EQ(exit_status(r), 0) << finding_ids(r);
  EXPECT_EQ(r.verdict.cuda_usable, true);
  ASSERT_EQ(r.verdict.torch.size(), 1u);
  EXPECT_TRUE(r.verdict.torch[0].cuda_available) << r.verdict.torch[0].reason;
  EXPECT_TRUE(r.recommendations.empty()) << "its torch works: nothing to install (issue 50, item 10)";
}

// Where the torch does not work for the machine, the recommendation is the build that does.
TEST(Scenario, ACpuBuildOnAGpuMachineIsOfferedTheCudaBuild) {
  Fixture f;
  healthy_gpu_machine(f);
  add_torch_venv(f, "/home/alice/venv", TorchSpec{"2.11.0+cpu", "", {}, {}});
  auto r = f.report();
  ASSERT_FALSE(r.recommendations.empty()) << finding_ids(r);
  EXPECT_EQ(r.recommendations[0].commands[0], "dlready setup ~/venvs/torch") << "the tool that plans, installs, proves";
  // The build `dlready setup` installs (driver 580: CUDA 13.0 natively), then the newest release's
  // cu132, which runs only through minor-version compatibility, said as such.
  EXPECT_NE(r.recommendations[0].commands[1].find("'torch==2.14.*' torchvision --index-url https://download.pytorch.org/whl/cu130"),
            std::string::npos) << r.recommendations[0].commands[1];
  ASSERT_GE(r.recommendations.size(), 2u);
  EXPECT_NE(r.recommendations[1].title.find("only through minor-version compatibility"), std::string::npos)
      << r.recommendations[1].title;
  // Through the binary: the block is printed for this machine, and not for the healthy one.
  Fixture healthy;
  healthy_gpu_machine(healthy);
  for (const Fixture* m : {&f, &healthy}) {
    auto text = run_command(m->env_command() + " " + DLREADY_BINARY + " doctor --no-color --no-cache --load-root-drivers --root " + m->root + " 2>&1");
    EXPECT_EQ(text.out.find("Recommended install") != std::string::npos, m == &f) << text.out;
  }
}

TEST(Scenario, NoNvidiaGpu) {
  Fixture f;
  add_base_system(f);
  add_pci_function(f, "0000:00:02.0", "8086", "4680", "030000", "i915");
  add_torch_venv(f, "/home/alice/venv", TorchSpec{});
  auto r = f.report();
  expect_finding(r, "no-nvidia-gpu");
  EXPECT_TRUE(r.verdict.cpu_training_ok);
  EXPECT_FALSE(r.verdict.torch.at(0).cuda_available);
  // The torch installed trains on the CPU: a CPU build is no better, so none is recommended (issue
  // 62, item 14); without a torch, the CPU build is.
  EXPECT_TRUE(r.recommendations.empty()) << r.recommendations.at(0).title;
  Fixture bare;
  add_base_system(bare);
  add_pci_function(bare, "0000:00:02.0", "8086", "4680", "030000", "i915");
  auto none = bare.report();
  ASSERT_FALSE(none.recommendations.empty());
  EXPECT_NE(none.recommendations.at(0).commands.at(1).find("/whl/cpu"), std::string::npos);
}

// A docker container in a KVM guest: the PCI devices seen are the VM's, so the finding says "a
// virtual machine", names it from DMI, and offers passthrough; the container alone is not the cause.
TEST(Scenario, NoNvidiaGpuInAVirtualMachineSaysNoGpuIsPassedThrough) {
  Fixture f;
  add_base_system(f);
  add_pci_function(f, "0000:00:02.0", "1234", "1111", "030000", "bochs-drm");
  f.write("/.dockerenv", "");
  f.write("/proc/cpuinfo", "processor\t: 0\nmodel name\t: Test CPU\nflags\t\t: fpu sse2 hypervisor\n\n");
  f.write("/sys/class/dmi/id/sys_vendor", "QEMU\n");
  f.write("/sys/class/dmi/id/product_name", "Standard PC (Q35 + ICH9, 2009)\n");
  auto r = f.report();
  ASSERT_TRUE(has_finding(r, "no-nvidia-gpu")) << finding_ids(r);
  const auto& x = get(r, "no-nvidia-gpu");
  std::string evidence;
  for (const auto& e : x.evidence) evidence += e + "\n";
  EXPECT_NE(evidence.find("in a virtual machine (QEMU Standard PC (Q35 + ICH9, 2009))"), std::string::npos) << evidence;
  EXPECT_NE(evidence.find("no NVIDIA GPU is passed through"), std::string::npos) << evidence;
  EXPECT_EQ(evidence.find("the host's PCI devices are visible"), std::string::npos) << evidence;
  std::string fixes;
  for (const auto& s : x.fix) fixes += s + "\n";
  EXPECT_NE(fixes.find("PCI passthrough"), std::string::npos) << fixes;
  // Through the binary: the facts name the VM.
  auto text = run_command(f.env_command() + " " + DLREADY_BINARY + " doctor --no-color --no-cache --root " + f.root + " 2>&1");
  EXPECT_NE(text.out.find("virtual machine: QEMU Standard PC"), std::string::npos) << text.out;
  // Bare metal in a container keeps the container's wording.
  Fixture bare;
  add_base_system(bare);
  add_pci_function(bare, "0000:00:02.0", "8086", "4680", "030000", "i915");
  bare.write("/.dockerenv", "");
  const auto bare_report = bare.report();
  const auto& y = get(bare_report, "no-nvidia-gpu");
  std::string bare_evidence;
  for (const auto& e : y.evidence) bare_evidence += e + "\n";
  EXPECT_NE(bare_evidence.find("the host's PCI devices are visible here"), std::string::npos) << bare_evidence;
  EXPECT_EQ(bare_evidence.find("virtual machine"), std::string::npos) << bare_evidence;
}

TEST(Scenario, NouveauLoaded) {
  Fixture f;
  add_base_system(f);
  add_nvidia_gpu(f, "0000:01:00.0", "2684", "nouveau");
  f.write("/proc/modules", "nouveau 1 0 - Live 0x0\n");
  add_torch_venv(f, "/home/alice/venv", TorchSpec{});
  auto r = f.report();
  expect_finding(r, "nouveau-loaded");
  EXPECT_FALSE(has_finding(r, "driver-not-loaded"));
}

TEST(Scenario, DriverNotLoadedButInstalled) {
  Fixture f;
  add_base_system(f);
  add_nvidia_gpu(f, "0000:01:00.0", "2684", "");
  write_kernel_module(f, "/lib/modules/6.1.0-test-amd64/updates/dkms/nvidia.ko", "580.65.06");
  add_torch_venv(f, "/home/alice/venv", TorchSpec{});
  auto r = f.report();
  expect_finding(r, "driver-not-loaded");
  EXPECT_NE(get(r, "driver-not-loaded").fix.at(0).find("modprobe nvidia"), std::string::npos);
}

TEST(Scenario, DriverRebootRequired) {
  Fixture f;
  healthy_gpu_machine(f);
  write_kernel_module(f, "/lib/modules/6.1.0-test-amd64/updates/dkms/nvidia.ko", "580.95.05");
  expect_finding(f.report(), "driver-reboot-required");
}

TEST(Scenario, NvidiaUvmMissing) {
  Fixture f;
  healthy_gpu_machine(f);
  add_loaded_driver(f, "580.65.06", /*uvm=*/false);
  f.remove("/dev/nvidia-uvm");
  expect_finding(f.report(), "nvidia-uvm-missing");
}

TEST(Scenario, DeviceNodePermission) {
  Fixture f;
  healthy_gpu_machine(f);
  add_device_nodes(f, 1, 0660);  // root:root, alice is not in the group
  expect_finding(f.report(), "device-node-permission");
  f.user = "root";
  EXPECT_FALSE(has_finding(f.report(), "device-node-permission"));
}

TEST(Scenario, LibcudaMissing) {
  Fixture f;
  healthy_gpu_machine(f);
  f.remove("/usr/lib/x86_64-linux-gnu/libcuda.so.1");
  auto r = f.report();
  expect_finding(r, "libcuda-missing");
  EXPECT_NE(get(r, "libcuda-missing").fix.at(0).find("libcuda1"), std::string::npos) << "Debian package named";
}

TEST(Scenario, LibcudaStub) {
  Fixture f;
  healthy_gpu_machine(f);
  f.remove("/usr/lib/x86_64-linux-gnu/libcuda.so.1");
  f.copy(DLREADY_FAKE_CUDA_LIB, "/usr/local/cuda/lib64/stubs/libcuda.so.1");
  write_driver_conf(f, "cuda.init=34\n", "/usr/local/cuda/lib64/stubs");
  f.env["LD_LIBRARY_PATH"] = "/usr/local/cuda/lib64/stubs:/usr/local/cuda/lib64";
  auto r = f.report();
  expect_finding(r, "libcuda-stub");
  EXPECT_FALSE(has_finding(r, "cuda-init-failed"));
}

TEST(Scenario, LibcudaLoadFailed) {
  Fixture f;
  healthy_gpu_machine(f);
  f.write("/usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06", "this is not an ELF file\n");
  expect_finding(f.report(), "libcuda-load-failed");
}

TEST(Scenario, DriverSymbolMissing) {
  Fixture f;
  healthy_gpu_machine(f);
  f.copy(DLREADY_FAKE_CUDA_PARTIAL_LIB, "/usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06");
  // The partial library has cuInit/cuDriverGetVersion/cuDeviceGetCount only: not fatal alone.
  auto facts = f.facts();
  EXPECT_EQ(facts.driver.status, ProbeStatus::ok);
  f.write("/usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06", "");
  f.copy(DLREADY_FAKE_NVML_LIB, "/usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06");  // NVML posing as libcuda
  auto r = f.report();
  expect_finding(r, "driver-symbol-missing");
  EXPECT_EQ(f.facts().driver.detail.find("missing symbol cuInit"), 0u);
}

TEST(Scenario, DriverLibraryMismatch) {
  Fixture f;
  healthy_gpu_machine(f);
  add_loaded_driver(f, "570.86.10");
  write_kernel_module(f, "/lib/modules/6.1.0-test-amd64/updates/dkms/nvidia.ko", "580.65.06");
  write_driver_conf(f, std::string(kH100) + "nvml.init=18\ncuda.init=803\n");
  auto r = f.report();
  expect_finding(r, "driver-library-mismatch");
  expect_finding(r, "driver-reboot-required");
}

TEST(Scenario, CudaCompatOnUnsupportedGpu) {
  Fixture f;
  healthy_gpu_machine(f);
  f.copy(DLREADY_FAKE_CUDA_LIB, "/usr/local/cuda/compat/libcuda.so.590.44.01");
  f.link("/usr/local/cuda/compat/libcuda.so.1", "libcuda.so.590.44.01");
  write_driver_conf(f, std::string(kH100) + "cuda.init=804\n", "/usr/local/cuda/compat");
  f.env["LD_LIBRARY_PATH"] = "/usr/local/cuda/compat";
  auto r = f.report();
  expect_finding(r, "cuda-compat-on-unsupported-gpu");
  EXPECT_FALSE(has_finding(r, "driver-library-mismatch")) << "compat libs differ from the module on purpose";
}

TEST(Scenario, FabricManagerMissing) {
  Fixture f;
  healthy_gpu_machine(f);
  write_driver_conf(f, std::string(kH100) + "cuda.init=802\n");
  auto r = f.report();
  expect_finding(r, "fabric-manager-missing");
  EXPECT_NE(get(r, "fabric-manager-missing").fix.at(0).find("nvidia-fabricmanager-580"), std::string::npos);
}

TEST(Scenario, DriverProbeHang) {
  Fixture f;
  healthy_gpu_machine(f);
  f.timeout_ms = 300;
  write_driver_conf(f, std::string(kH100) + "cuda.behaviour=hang\n");
  auto facts = f.facts();
  EXPECT_EQ(facts.driver.status, ProbeStatus::timeout);
  EXPECT_EQ(facts.driver.driver_version, 13000) << "what the child learnt before hanging is kept";
  EXPECT_LT(facts.driver.elapsed_ms, 3000);
  expect_finding(f.report(), "driver-probe-hang");
}

TEST(Scenario, DriverProbeCrash) {
  Fixture f;
  healthy_gpu_machine(f);
  write_driver_conf(f, std::string(kH100) + "nvml.behaviour=crash\n");
  auto r = f.report();
  expect_finding(r, "driver-probe-crash");
  EXPECT_EQ(f.facts().nvml.status, ProbeStatus::crashed);
}

TEST(Scenario, CudaInitFailedUnknown) {
  Fixture f;
  healthy_gpu_machine(f);
  write_driver_conf(f, std::string(kH100) + "cuda.init=999\n");
  auto r = f.report();
  expect_finding(r, "cuda-init-failed");
  EXPECT_NE(get(r, "cuda-init-failed").fix.at(0).find("nvidia_uvm"), std::string::npos);
}

TEST(Scenario, DriverTooOldForWheel) {
  Fixture f;
  healthy_gpu_machine(f);
  replace_driver(f, "470.82.01", "devices=1\ndev0.cc=8.6\ncuda.driver_version=11040\nnvml.driver=470.82.01\n");
  TorchSpec cu121{"2.3.1+cu121", "12.1", {}, {}};
  add_torch_venv(f, "/home/alice/venv", cu121);
  auto r = f.report();
  expect_finding(r, "driver-too-old");
  bool names_min = false;
  for (const auto& e : get(r, "driver-too-old").evidence) names_min |= e.find("525.60.13") != std::string::npos;
  EXPECT_TRUE(names_min);
  EXPECT_FALSE(r.verdict.torch.at(0).cuda_available);
}

TEST(Scenario, CudaVisibleDevicesHidesAll) {
  for (const char* value : {"", "-1", "7"}) {
    Fixture f;
    healthy_gpu_machine(f);
    f.env["CUDA_VISIBLE_DEVICES"] = value;
    auto facts = f.facts();
    EXPECT_EQ(facts.driver.device_count.value_or(-1), 0) << "the fake driver honours CVD too: " << value;
    expect_finding(f.report(), "cuda-visible-devices-hides-all");
  }
}

TEST(Scenario, CudaVisibleDevicesInvalid) {
  Fixture f;
  healthy_gpu_machine(f);
  add_nvidia_gpu(f, "0000:02:00.0", "2330");
  add_device_nodes(f, 2);
  write_driver_conf(f, "devices=2\ndev0.cc=9.0\ndev1.cc=9.0\n");
  f.env["CUDA_VISIBLE_DEVICES"] = "0,5,1";
  auto r = f.report();
  expect_finding(r, "cuda-visible-devices-invalid");
  EXPECT_EQ(exit_status(r), 0) << "a warning: GPU 0 still works";
  EXPECT_EQ(r.verdict.cuda_usable, true);
}

TEST(Scenario, AllocConfInvalid) {
  Fixture f;
  healthy_gpu_machine(f);
  f.env["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments=true";
  auto r = f.report();
  expect_finding(r, "alloc-conf-invalid");
  EXPECT_EQ(get(r, "alloc-conf-invalid").fix.at(0), "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True");
  EXPECT_EQ(exit_status(r), 1) << "every CUDA job fails at its first tensor";
  f.env["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True";
  EXPECT_FALSE(has_finding(f.report(), "alloc-conf-invalid"));
}

// The value is wrong with or without a GPU (issue 15, item 10): said on a CPU machine too.
TEST(Scenario, AllocConfInvalidWithoutAGpu) {
  Fixture f;
  add_base_system(f);
  f.env["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments=true";
  expect_finding(f.report(), "alloc-conf-invalid");
}

TEST(Scenario, ComputeModeProhibitedAndExclusive) {
  Fixture f;
  healthy_gpu_machine(f);
  write_driver_conf(f, std::string(kH100) + "dev0.compute_mode=2\n");
  expect_finding(f.report(), "compute-mode-prohibited");
  write_driver_conf(f, std::string(kH100) + "dev0.compute_mode=3\n");
  auto r = f.report();
  expect_finding(r, "compute-mode-exclusive");
  EXPECT_EQ(exit_status(r), 0);
}

TEST(Scenario, MigWithoutInstancesAndPendingReset) {
  Fixture f;
  healthy_gpu_machine(f);
  write_driver_conf(f, std::string(kH100) + "dev0.mig=1\ndev0.mig_instances=0\n");
  expect_finding(f.report(), "mig-without-instances");
  write_driver_conf(f, std::string(kH100) + "dev0.mig=1\ndev0.mig_instances=2\n");
  EXPECT_FALSE(has_finding(f.report(), "mig-without-instances"));
  write_driver_conf(f, std::string(kH100) + "dev0.mig=0\ndev0.mig_pending=1\n");
  expect_finding(f.report(), "mig-pending-reset");
}

// A GPU held down by the hardware (thermal, power brake) trains several times slower with no error:
// NVML's clocks event reasons name it; an idle GPU and the power cap are how a healthy one runs.
TEST(Scenario, GpuClocksSlowedByTheHardware) {
  Fixture f;
  healthy_gpu_machine(f);
  EXPECT_FALSE(has_finding(f.report(), "gpu-clocks-slowed")) << "idle (0x1) is healthy";
  write_driver_conf(f, std::string(kH100) + "dev0.clocks_event_reasons=5\n");  // idle + the power cap
  EXPECT_FALSE(has_finding(f.report(), "gpu-clocks-slowed"));
  write_driver_conf(f, std::string(kH100) + "dev0.clocks_event_reasons=72\n");  // HW slowdown + HW thermal
  auto r = f.report();
  expect_finding(r, "gpu-clocks-slowed");
  const auto& x = get(r, "gpu-clocks-slowed");
  EXPECT_EQ(x.severity, Severity::warning);
  ASSERT_EQ(x.evidence.size(), 1u);
  EXPECT_NE(x.evidence[0].find("GPU 0 NVIDIA H100 80GB HBM3: hardware slowdown"), std::string::npos) << x.evidence[0];
  EXPECT_NE(x.evidence[0].find("hardware thermal slowdown"), std::string::npos) << x.evidence[0];
  EXPECT_NE(x.fix.at(0).find("nvidia-smi -q -d PERFORMANCE"), std::string::npos);
  // Through the binary: the fact is in the JSON as NVML gave it.
  auto out = command_output(std::string(DLREADY_BINARY) + " doctor --json --load-root-drivers --root " + f.root + " 2>&1");
  EXPECT_NE(out.find("\"clocks_event_reasons\": 72"), std::string::npos) << out.substr(0, 400);
}

// Issue 61 item 2: the driver's branch against the GPU's architecture (data/driver_arch.tsv), both
// ways: an RTX 4090 on R470 (Ada's first branch is R520), a GTX 1080 on R590 (Pascal's last is
// R580).
TEST(Scenario, DriverDoesNotDriveGpu) {
  Fixture f;
  healthy_gpu_machine(f);
  EXPECT_FALSE(has_finding(f.report(), "driver-does-not-drive-gpu")) << "an H100 on R580";
  f.remove("/sys/bus/pci/devices/0000:01:00.0");
  add_nvidia_gpu(f, "0000:01:00.0", "2684");  // GeForce RTX 4090
  replace_driver(f, "470.256.02", "devices=0\ncuda.driver_version=11040\n");
  auto r = f.report();
  expect_finding(r, "driver-does-not-drive-gpu");
  const auto& x = get(r, "driver-does-not-drive-gpu");
  EXPECT_EQ(x.severity, Severity::error);
  EXPECT_NE(x.evidence.at(0).find(
                "(sm_89, Ada): its first driver branch is R520; this driver is 470.256.02"),
            std::string::npos)
      << x.evidence.at(0);
  EXPECT_NE(x.fix.at(0).find("branch R520 or newer"), std::string::npos) << x.fix.at(0);
  Fixture pascal;
  healthy_gpu_machine(pascal);
  pascal.remove("/sys/bus/pci/devices/0000:01:00.0");
  add_nvidia_gpu(pascal, "0000:01:00.0", "1b80");  // GeForce GTX 1080
  replace_driver(pascal, "590.48.01", "devices=0\ncuda.driver_version=13010\n");
  auto p = pascal.report();
  expect_finding(p, "driver-does-not-drive-gpu");
  EXPECT_NE(
      get(p, "driver-does-not-drive-gpu").evidence.at(0).find("its last driver branch is R580"),
      std::string::npos)
      << get(p, "driver-does-not-drive-gpu").evidence.at(0);
}

TEST(Scenario, GpuCountMismatchAndBarUnassigned) {
  Fixture f;
  healthy_gpu_machine(f);
  add_nvidia_gpu(f, "0000:02:00.0", "2330");
  f.write("/sys/devices/pci0000:00/0000:02:00.0/resource",
          "0x00000000fa000000 0x00000000faffffff 0x0000000000040200\n"
          "0x0000000000000000 0x0000000000000000 0x0000000000000000\n");
  auto r = f.report();
  expect_finding(r, "gpu-count-mismatch");
  expect_finding(r, "gpu-bar-unassigned");
  EXPECT_EQ(get(r, "gpu-bar-unassigned").severity, Severity::warning) << "a GPU that does not answer";
  EXPECT_NE(get(r, "gpu-bar-unassigned").fix.at(0).find("Above 4G decoding"), std::string::npos);
}

// Issue 34, item 2: one name for a GPU everywhere — pci.ids' when the machine has it, else
// data/gpus.tsv's (the H200's evidence said "unknown NVIDIA device" while its GPU list named it).
TEST(Scenario, AGpuHasOneNameInEveryMention) {
  Fixture f;
  healthy_gpu_machine(f);
  f.remove("/usr/share/misc/pci.ids");
  f.remove("/usr/share/hwdata/pci.ids");
  add_nvidia_gpu(f, "0000:02:00.0", "2335");
  f.write("/sys/devices/pci0000:00/0000:02:00.0/resource",
          "0x00000000fa000000 0x00000000faffffff 0x0000000000040200\n"
          "0x0000000000000000 0x0000000000000000 0x0000000000000000\n");
  auto r = f.report();
  ASSERT_TRUE(has_finding(r, "gpu-bar-unassigned"));
  const auto& ev = get(r, "gpu-bar-unassigned").evidence.at(0);
  EXPECT_NE(ev.find("NVIDIA H200"), std::string::npos) << ev;
  EXPECT_EQ(ev.find("unknown NVIDIA device"), std::string::npos) << ev;
  // Item 4: the GPU list and --binary's check name one device the same way (cuda:N and its address).
  auto facts = f.facts();
  auto list = section_facts(facts, "gpu");
  ASSERT_FALSE(list.empty());
  EXPECT_NE(list[0].find("0000:01:00.0 NVIDIA H100 (SXM5 80GB / PCIe / NVL 94GB) [10de:2330] = cuda:0"), std::string::npos)
      << list[0];
  EXPECT_EQ(derive(facts).gpu_archs.at(0).label, "cuda:0 NVIDIA H100 80GB HBM3 (0000:01:00.0)");
}

// Issue 34, item 2: the first H200 (a VM, CUDA working) showed a zero BAR1 line in sysfs. NVML
// settles it; a GPU CUDA answers on gets info about what is lost, never a BIOS fix for a VM.
TEST(Scenario, BarUnassignedCrossCheckedWithTheDriver) {
  const std::string zero_bar1 = "0x00000000fa000000 0x00000000faffffff 0x0000000000040200\n"
                                "0x0000000000000000 0x0000000000000000 0x0000000000000000\n";
  Fixture f;
  healthy_gpu_machine(f);  // cuda:0 and NVML device 0 are 0000:01:00.0
  f.write("/sys/devices/pci0000:00/0000:01:00.0/resource", zero_bar1);
  write_driver_conf(f, std::string(kH100) + "dev0.bar1_mib=131072\n");
  EXPECT_FALSE(has_finding(f.report(), "gpu-bar-unassigned")) << "NVML's BAR1 size > 0: the sysfs line misleads";
  // A VM whose driver does not report BAR1: CUDA works there, so info, and no BIOS advice.
  write_driver_conf(f, kH100);
  f.write("/proc/cpuinfo", "processor\t: 0\nmodel name\t: Test CPU\nflags\t\t: fpu sse2 hypervisor\n\n"
                           "processor\t: 1\nmodel name\t: Test CPU\nflags\t\t: fpu sse2 hypervisor\n");
  auto vm = f.report();
  ASSERT_TRUE(has_finding(vm, "gpu-bar-unassigned"));
  const auto& x = get(vm, "gpu-bar-unassigned");
  EXPECT_EQ(x.severity, Severity::info);
  // Where CUDA works, the verdict says what works on the GPU, not the CPU.
  EXPECT_NE(vm.verdict.summary.find("GPU training works: dlready train"), std::string::npos) << vm.verdict.summary;
  EXPECT_EQ(vm.verdict.summary.find("CPU training works"), std::string::npos) << vm.verdict.summary;
  EXPECT_NE(x.title.find("peer-to-peer and GPUDirect"), std::string::npos) << x.title;
  EXPECT_EQ(x.fix.at(0).find("BIOS"), std::string::npos) << x.fix.at(0);
  EXPECT_EQ(exit_status(vm), 0);
  // Bare metal where cuInit fails: the warning, with the BIOS fix.
  Fixture m;
  healthy_gpu_machine(m);
  m.write("/sys/devices/pci0000:00/0000:01:00.0/resource", zero_bar1);
  write_driver_conf(m, std::string(kH100) + "cuda.init=101\n");
  auto bare = m.report();
  ASSERT_TRUE(has_finding(bare, "gpu-bar-unassigned"));
  EXPECT_NE(bare.verdict.summary.find("CPU training works"), std::string::npos) << bare.verdict.summary;
  EXPECT_EQ(get(bare, "gpu-bar-unassigned").severity, Severity::warning);
  EXPECT_NE(get(bare, "gpu-bar-unassigned").fix.at(0).find("Above 4G decoding"), std::string::npos);
}

TEST(Scenario, PcieLinkDegradedAndHybridGraphics) {
  Fixture f;
  healthy_gpu_machine(f);
  f.write("/sys/devices/pci0000:00/0000:01:00.0/current_link_width", "8\n");
  add_pci_function(f, "0000:00:02.0", "8086", "4680", "030000", "i915");
  auto r = f.report();
  expect_finding(r, "pcie-link-degraded");
  expect_finding(r, "hybrid-graphics");
  EXPECT_EQ(exit_status(r), 0);
}

TEST(Scenario, GpuMemoryBusy) {
  Fixture f;
  healthy_gpu_machine(f);
  write_driver_conf(f, std::string(kH100) + "dev0.memory_mib=81920\ndev0.memory_used_mib=70000\n");
  auto r = f.report();
  expect_finding(r, "gpu-memory-busy");
  EXPECT_EQ(exit_status(r, Severity::warning), 1);
}

TEST(Scenario, WslWithoutWindowsDriver) {
  Fixture f;
  add_base_system(f, "ubuntu");
  f.write("/proc/version", "Linux version 5.15.153.1-microsoft-standard-WSL2 (gcc)\n");
  add_torch_venv(f, "/home/alice/venv", TorchSpec{});
  auto r = f.report();
  expect_finding(r, "wsl-windows-driver-missing");
  EXPECT_FALSE(has_finding(r, "no-nvidia-gpu")) << "the WSL finding explains it better";
}

TEST(Scenario, WslHealthyAndWithLinuxDriver) {
  Fixture f;
  add_base_system(f, "ubuntu");
  f.write("/proc/version", "Linux version 5.15.153.1-microsoft-standard-WSL2 (gcc)\n");
  f.write("/dev/dxg", "", 0666);
  add_user_driver(f, "1.1", kH100, "/usr/lib/wsl/lib");
  write_ld_cache(f, {{"libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1"},
                     {"libnvidia-ml.so.1", "/usr/lib/wsl/lib/libnvidia-ml.so.1"}});
  add_torch_venv(f, "/home/alice/venv", TorchSpec{});
  auto healthy = f.report();
  EXPECT_EQ(exit_status(healthy), 0) << finding_ids(healthy);
  EXPECT_EQ(healthy.verdict.cuda_usable, true);
  add_user_driver(f, "580.65.06", kH100);
  write_ld_cache(f, {{"libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1"},
                     {"libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1"}});
  expect_finding(f.report(), "wsl-linux-driver-installed");
}

TEST(Scenario, ContainerWithoutGpu) {
  Fixture f;
  add_base_system(f);
  f.write("/.dockerenv", "");
  add_nvidia_gpu(f, "0000:01:00.0", "2330", "nvidia");
  add_torch_venv(f, "/home/alice/venv", TorchSpec{});
  auto r = f.report();
  expect_finding(r, "container-without-gpu");
  EXPECT_FALSE(has_finding(r, "driver-not-loaded")) << "the host's driver is not the container's business";
  EXPECT_FALSE(has_finding(r, "libcuda-missing"));
}

TEST(Scenario, ContainerMissingComputeCapability) {
  Fixture f;
  healthy_gpu_machine(f);
  f.write("/.dockerenv", "");
  f.env["NVIDIA_DRIVER_CAPABILITIES"] = "utility";
  expect_finding(f.report(), "container-missing-compute-capability");
}

TEST(Scenario, ShmTooSmall) {
  Fixture f;
  healthy_gpu_machine(f);
  f.write("/.dockerenv", "");
  f.write("/proc/self/mounts", "shm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size=65536k 0 0\n");
  auto r = f.report();
  expect_finding(r, "shm-too-small");
  EXPECT_NE(get(r, "shm-too-small").fix.at(0).find("--shm-size"), std::string::npos);
}

// Issue 15, item 11: a busy machine is named, with what is running; an idle one is not.
TEST(Scenario, CpuOversubscribed) {
  Fixture f;
  add_base_system(f);  // 2 processors
  f.write("/proc/loadavg", "0.40 0.50 0.60 1/300 4242\n");
  EXPECT_FALSE(has_finding(f.report(), "cpu-oversubscribed"));
  f.write("/proc/loadavg", "5.10 4.80 3.90 6/300 4242\n");
  f.write("/proc/4001/stat", "4001 (cc1plus) R 1 1 1 0 -1 4194304 0 0 0 0 100 5 0 0 20 0 1 0\n");
  f.write("/proc/4002/stat", "4002 (python3 (worker)) R 1 1 1 0 -1 0 0 0 0 0 100 5 0 0 20 0 1 0\n");
  f.write("/proc/4003/stat", "4003 (sleepy) S 1 1 1 0 -1 0 0 0 0 0 1 0 0 0 20 0 1 0\n");
  auto r = f.report();
  expect_finding(r, "cpu-oversubscribed");
  const auto& x = get(r, "cpu-oversubscribed");
  EXPECT_NE(x.evidence.at(0).find("load average 5.10"), std::string::npos) << x.evidence.at(0);
  EXPECT_NE(x.evidence.at(0).find("on 2 processor(s)"), std::string::npos) << x.evidence.at(0);
  ASSERT_EQ(x.evidence.size(), 2u);
  EXPECT_NE(x.evidence[1].find("cc1plus"), std::string::npos) << x.evidence[1];
  EXPECT_NE(x.evidence[1].find("python3 (worker)"), std::string::npos) << x.evidence[1];
  EXPECT_EQ(x.evidence[1].find("sleepy"), std::string::npos) << x.evidence[1];
  EXPECT_EQ(exit_status(r), 1) << "no GPU here; the warning itself does not fail the doctor";
  for (const auto& fix : x.fix) EXPECT_EQ(fix.find("--device cuda"), std::string::npos) << "no GPU to offer: " << fix;
  // A machine whose GPU works gets it offered.
  Fixture g;
  healthy_gpu_machine(g);
  g.write("/proc/loadavg", "5.10 4.80 3.90 6/300 4242\n");
  auto with_gpu = g.report();
  ASSERT_TRUE(has_finding(with_gpu, "cpu-oversubscribed"));
  EXPECT_NE(get(with_gpu, "cpu-oversubscribed").fix.back().find("dlready train --device cuda"), std::string::npos);
}

TEST(Scenario, TorchNotInstalled) {
  Fixture f;
  healthy_gpu_machine(f);
  f.remove("/home/alice/venv");
  f.env.erase("VIRTUAL_ENV");
  auto r = f.report();
  expect_finding(r, "torch-not-installed");
  EXPECT_FALSE(r.verdict.cpu_training_ok);
  // Where dlready setup exists, it is the fix; the pip line is the manual alternative.
  const auto& fix = get(r, "torch-not-installed").fix;
  EXPECT_EQ(fix.at(0).rfind("dlready setup ~/venvs/torch", 0), 0u) << fix.at(0);
  EXPECT_NE(fix.back().find("pip install"), std::string::npos) << fix.back();
}

TEST(Scenario, TorchCpuOnly) {
  Fixture f;
  healthy_gpu_machine(f);
  add_torch_venv(f, "/home/alice/venv2", TorchSpec{"2.11.0+cpu", "", {}, {}});
  auto r = f.report();
  expect_finding(r, "torch-cpu-only");
  // setup's build: the newest the driver (CUDA 13.0) runs natively, not 2.15's cu132 (minor compatibility only)
  bool cu130 = false;
  for (const auto& c : get(r, "torch-cpu-only").fix) cu130 |= c.find("'torch==2.14.*' torchvision --index-url https://download.pytorch.org/whl/cu130") != std::string::npos;
  EXPECT_TRUE(cu130);
}

TEST(Scenario, TorchDuplicateInstalls) {
  Fixture f;
  healthy_gpu_machine(f);
  f.env.erase("VIRTUAL_ENV");
  add_torch_to_site_packages(f, "/usr/lib/python3.11/site-packages", TorchSpec{});
  add_torch_to_site_packages(f, "/home/alice/.local/lib/python3.11/site-packages", TorchSpec{"2.9.0+cu128", "12.8", {}, {}});
  expect_finding(f.report(), "torch-duplicate-installs");
}

TEST(Scenario, TorchCudaWheelMissingAndMismatch) {
  Fixture f;
  healthy_gpu_machine(f);
  TorchSpec spec;
  spec.installed = {{"nvidia-nccl-cu13", "2.27.3"}};
  add_torch_venv(f, "/home/alice/venv", spec);
  f.remove("/home/alice/venv/lib/python3.11/site-packages/nvidia_cudnn_cu13-9.19.0.56.dist-info");
  f.remove("/home/alice/venv/lib/python3.11/site-packages/nvidia_nccl_cu13-2.28.9.dist-info");
  auto r = f.report();
  expect_finding(r, "torch-cuda-wheel-missing");
  expect_finding(r, "torch-cuda-wheel-version-mismatch");
}

TEST(Scenario, CudaToolkitTorchMismatch) {
  Fixture f;
  healthy_gpu_machine(f);
  f.write("/usr/local/cuda-12.4/version.json", R"({"cuda": {"name": "CUDA SDK", "version": "12.4.131"}})");
  f.write("/usr/local/cuda-12.4/bin/nvcc", "", 0755);
  f.link("/usr/local/cuda", "cuda-12.4");
  auto r = f.report();
  expect_finding(r, "cuda-toolkit-torch-mismatch");
  EXPECT_EQ(f.facts().cuda_libs.toolkits.at(0).version, "12.4.131");
}

TEST(Scenario, LibtorchAbiMismatch) {
  Fixture f;
  healthy_gpu_machine(f);
  f.write("/opt/libtorch/build-version", "1.13.1+cu117\n");
  f.write("/opt/libtorch/share/cmake/Torch/TorchConfig.cmake",
          "set(TORCH_CXX_FLAGS \"-D_GLIBCXX_USE_CXX11_ABI=0\")\n");
  auto r = f.report();
  expect_finding(r, "libtorch-abi-mismatch");
  EXPECT_EQ(f.facts().libtorch.installs.at(0).build_version, "1.13.1+cu117");
}

// Issue 35, item 13: a missing module is a finding, so its section is never marked fine.
TEST(Scenario, DlreadyModuleMissing) {
  Fixture f;
  healthy_gpu_machine(f);
  auto o = f.options();
  o.own_module = "/opt/dlready/bin/libdlready_train.so";
  auto r = diagnose(gather_facts(o).facts);
  expect_finding(r, "dlready-module-missing");
  EXPECT_EQ(get(r, "dlready-module-missing").fix.size(), 2u) << "a source build: setup.sh, cmake --install";
  EXPECT_FALSE(has_finding(f.report(), "dlready-module-missing")) << "not looked for: nothing to say";
  // A wheel-installed dlready builds it against the user's torch: the fix is that one command.
  o.own_module_built_by = "dlready module build";
  r = diagnose(gather_facts(o).facts);
  ASSERT_TRUE(has_finding(r, "dlready-module-missing"));
  ASSERT_EQ(get(r, "dlready-module-missing").fix.size(), 1u);
  EXPECT_EQ(get(r, "dlready-module-missing").fix[0].rfind("dlready module build  (", 0), 0u) << get(r, "dlready-module-missing").fix[0];
  // Through the binary: a dlready copied without its module marks the LibTorch section.
  std::string lone = f.root + "/dlready";
  f.copy(DLREADY_BINARY, "/dlready");
  auto text = command_output(lone + " doctor --no-driver-probe --no-cache 2>&1");
  EXPECT_NE(text.find("[dlready-module-missing]"), std::string::npos) << text;
  EXPECT_EQ(text.find("✓ LibTorch"), std::string::npos) << text;
}

// Issue 15, item 4: the reference libblas.so.3 is a finding only for what really uses it.
TEST(Scenario, BlasReference) {
  Fixture f;
  healthy_gpu_machine(f);  // its PyTorch wheel: libtorch_cpu.so links no BLAS library (MKL inside)
  const std::string sp = "/home/alice/venv/lib/python3.11/site-packages";
  f.copy(DLREADY_FAKE_TORCH_CPU, sp + "/torch/lib/libtorch_cpu.so");
  f.write("/usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0", "");
  f.link("/etc/alternatives/libblas.so.3-x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0");
  f.link("/usr/lib/x86_64-linux-gnu/libblas.so.3", "/etc/alternatives/libblas.so.3-x86_64-linux-gnu");
  // A numpy wheel in the same environment bundles OpenBLAS.
  f.write(sp + "/numpy/__init__.py", "");
  f.write(sp + "/numpy.libs/libscipy_openblas64_-ff651d7f.so", "");
  auto r = f.report();
  EXPECT_FALSE(has_finding(r, "blas-reference")) << "nothing found uses libblas.so.3";
  ASSERT_EQ(f.facts().blas.consumers.size(), 2u);
  EXPECT_EQ(f.facts().blas.consumers[0].blas, "linked in");
  EXPECT_EQ(f.facts().blas.consumers[1].blas, "bundled: numpy.libs/libscipy_openblas64_-ff651d7f.so");
  // Debian's python3-numpy links libblas.so.3: now the slow BLAS is on a path.
  f.copy(DLREADY_FAKE_NUMPY_UMATH, "/usr/lib/python3/dist-packages/numpy/core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so");
  r = f.report();
  expect_finding(r, "blas-reference");
  const auto& x = get(r, "blas-reference");
  EXPECT_NE(join(x.evidence, "|").find("it does the matrix math of: numpy (/usr/lib/python3/dist-packages/numpy/core/"),
            std::string::npos) << join(x.evidence, "|");
  EXPECT_NE(join(x.evidence, "|").find("not of torch"), std::string::npos) << join(x.evidence, "|");
  f.write("/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3", "");
  f.link("/etc/alternatives/libblas.so.3-x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3");
  r = f.report();
  EXPECT_FALSE(has_finding(r, "blas-reference"));
  EXPECT_EQ(f.facts().blas.implementation, "openblas");
}

// PyTorch's wheel layout with real (tiny) ELF libraries: torch/lib/libtorch_cuda.so with RPATH
// $ORIGIN/../../nvidia/{cu13,cudnn}/lib, libcudnn.so.9 with RUNPATH $ORIGIN.
void add_wheel_libraries(Fixture& f, const std::string& sp) {
  f.copy(DLREADY_FAKE_TORCH_CUDA, sp + "/torch/lib/libtorch_cuda.so");
  f.copy(DLREADY_FAKE_CUDART, sp + "/nvidia/cu13/lib/libcudart.so.13");
  f.copy(DLREADY_FAKE_CUDNN, sp + "/nvidia/cudnn/lib/libcudnn.so.9");
  for (const char* sub : {"graph", "engines_precompiled", "engines_runtime_compiled", "heuristic", "ops", "cnn", "adv"}) {
    std::string name = std::string("libcudnn_") + sub + ".so.9";
    f.copy(DLREADY_FAKE_CUDNN_GRAPH, sp + "/nvidia/cudnn/lib/" + name + ".19.0");
    f.link(sp + "/nvidia/cudnn/lib/" + name, name + ".19.0");
  }
}
const char* kSp = "/home/alice/venv/lib/python3.11/site-packages";

TEST(Scenario, WheelLibrariesResolve) {
  Fixture f;
  healthy_gpu_machine(f);
  add_wheel_libraries(f, kSp);
  auto facts = f.facts();
  ASSERT_EQ(facts.binaries.size(), 1u);
  std::map<std::string, std::string> via;
  for (const auto& l : facts.binaries[0].libraries) via[l.name] = l.via;
  EXPECT_EQ(via["libcudart.so.13"], "RPATH");
  EXPECT_EQ(via["libcudnn.so.9"], "RPATH");
  EXPECT_EQ(via["libcudnn_graph.so.9"], "RUNPATH") << "cuDNN dlopens its sub-libraries through its own RUNPATH";
  auto r = f.report();
  EXPECT_EQ(exit_status(r), 0) << finding_ids(r);
}

TEST(Scenario, CudaLibUnresolvable) {
  Fixture f;
  healthy_gpu_machine(f);
  add_wheel_libraries(f, kSp);
  f.remove(std::string(kSp) + "/nvidia/cu13/lib/libcudart.so.13");
  auto r = f.report();
  expect_finding(r, "cuda-lib-unresolvable");
  auto& x = get(r, "cuda-lib-unresolvable");
  EXPECT_NE(x.evidence.at(0).find("libcudart.so.13, needed by"), std::string::npos);
  EXPECT_NE(x.evidence.at(1).find("nvidia/cu13/lib (RPATH)"), std::string::npos) << x.evidence.at(1);
}

TEST(Scenario, CudnnShadowedByLdLibraryPath) {
  Fixture f;
  healthy_gpu_machine(f);
  add_wheel_libraries(f, kSp);
  f.copy(DLREADY_FAKE_CUDNN_GRAPH, "/opt/cudnn-9.1/lib/libcudnn_graph.so.9.1.0");
  f.link("/opt/cudnn-9.1/lib/libcudnn_graph.so.9", "libcudnn_graph.so.9.1.0");
  f.env["LD_LIBRARY_PATH"] = "/opt/cudnn-9.1/lib";
  auto r = f.report();
  expect_finding(r, "cuda-lib-shadowed");
  auto& x = get(r, "cuda-lib-shadowed");
  std::string all = x.evidence[0] + " " + x.evidence[1];
  EXPECT_NE(all.find("9.1.0"), std::string::npos) << all;
  EXPECT_NE(all.find("9.19.0"), std::string::npos) << all;
}

// The first GPU machine lent: a system cuDNN 9.14 in ld.so.cache beside the wheel's 9.19.
TEST(Scenario, CudaLibSecondCopyInTheCacheIsInfo) {
  Fixture f;
  healthy_gpu_machine(f);
  add_wheel_libraries(f, kSp);
  f.copy(DLREADY_FAKE_CUDNN_GRAPH, "/usr/lib/x86_64-linux-gnu/libcudnn_graph.so.9.14.0");
  f.link("/usr/lib/x86_64-linux-gnu/libcudnn_graph.so.9", "libcudnn_graph.so.9.14.0");
  write_ld_cache(f, {{"libcudnn_graph.so.9", "/usr/lib/x86_64-linux-gnu/libcudnn_graph.so.9"}});
  auto r = f.report();
  expect_finding(r, "cuda-lib-second-copy");
  auto& x = get(r, "cuda-lib-second-copy");
  EXPECT_EQ(x.severity, Severity::info);
  ASSERT_FALSE(x.evidence.empty());
  EXPECT_NE(x.evidence[0].find(std::string(kSp) + "/nvidia/cudnn/lib/libcudnn_graph.so.9 [9.19.0]"), std::string::npos)
      << x.evidence[0];
  EXPECT_NE(x.evidence[0].find("/usr/lib/x86_64-linux-gnu/libcudnn_graph.so.9 [9.14.0] (ld.so.cache)"), std::string::npos)
      << x.evidence[0];
  EXPECT_EQ(exit_status(r, Severity::warning), 0) << finding_ids(r);
}

// libtorch_cuda's RPATH beats LD_LIBRARY_PATH, so the wheel's cudart is picked — but a RUNPATH
// program (dlready's module, a LibTorch app) or a dlopen by name would take the other one.
TEST(Scenario, CudaLibSecondCopyOnLdLibraryPathIsAWarning) {
  Fixture f;
  healthy_gpu_machine(f);
  add_wheel_libraries(f, kSp);
  f.copy(DLREADY_FAKE_CUDART, "/usr/local/cuda-13.0/lib64/libcudart.so.13.0.48");
  f.link("/usr/local/cuda-13.0/lib64/libcudart.so.13", "libcudart.so.13.0.48");
  f.env["LD_LIBRARY_PATH"] = "/usr/local/cuda-13.0/lib64";
  auto r = f.report();
  expect_finding(r, "cuda-lib-second-copy");
  auto& x = get(r, "cuda-lib-second-copy");
  EXPECT_EQ(x.severity, Severity::warning);
  EXPECT_NE(join(x.evidence, "\n").find("/usr/local/cuda-13.0/lib64/libcudart.so.13 [13.0.48] (LD_LIBRARY_PATH)"),
            std::string::npos)
      << join(x.evidence, "\n");
  ASSERT_FALSE(x.fix.empty());
  EXPECT_NE(x.fix[0].find("/usr/local/cuda-13.0/lib64"), std::string::npos) << x.fix[0];
  EXPECT_FALSE(has_finding(r, "cuda-lib-shadowed")) << "the wheel's copy is the one picked";
}

// Issue 62, item 4: one folder holding several copies is named once in the fix, not once per library.
TEST(Scenario, ALdLibraryPathFolderIsNamedOnceForAllItsCopies) {
  Fixture f;
  healthy_gpu_machine(f);
  add_wheel_libraries(f, kSp);
  f.copy(DLREADY_FAKE_CUDART, "/usr/local/cuda/lib64/libcudart.so.13.0.48");
  f.link("/usr/local/cuda/lib64/libcudart.so.13", "libcudart.so.13.0.48");
  f.copy(DLREADY_FAKE_CUDNN, "/usr/local/cuda/lib64/libcudnn.so.9");
  for (const char* sub : {"graph", "ops", "cnn", "adv", "heuristic"}) {
    const std::string name = std::string("libcudnn_") + sub + ".so.9";
    f.copy(DLREADY_FAKE_CUDNN_GRAPH, "/usr/local/cuda/lib64/" + name + ".1.0");
    f.link("/usr/local/cuda/lib64/" + name, name + ".1.0");
  }
  f.env["LD_LIBRARY_PATH"] = "/usr/local/cuda/lib64";
  auto r = f.report();
  size_t shadowed = 0;
  for (const auto& x : r.findings) {
    if (x.id == "cuda-lib-shadowed") ++shadowed;
    for (const auto& fix : x.fix) {
      const std::string dir = "/usr/local/cuda/lib64";
      size_t first = fix.find(dir + ",");
      EXPECT_EQ(first, std::string::npos) << x.id << ": " << fix;
    }
  }
  EXPECT_EQ(shadowed, 1u) << "one finding for the folder, its libraries in the evidence\n" << finding_ids(r);
  ASSERT_TRUE(has_finding(r, "cuda-lib-shadowed")) << finding_ids(r);
  EXPECT_GE(get(r, "cuda-lib-shadowed").evidence.size(), 5u) << "each shadowed library is listed";
  ASSERT_TRUE(has_finding(r, "cuda-lib-second-copy")) << finding_ids(r);
  EXPECT_NE(get(r, "cuda-lib-second-copy").fix.at(0).find("drop /usr/local/cuda/lib64 from it"), std::string::npos)
      << get(r, "cuda-lib-second-copy").fix.at(0);
}

TEST(Scenario, LibUnresolvableForABinary) {
  Fixture f;
  healthy_gpu_machine(f);
  f.copy(DLREADY_FAKE_TORCH_CUDA, "/opt/app/bin/app");  // needs libcudart.so.13 and libcudnn.so.9 via RPATH
  auto o = f.options();
  o.binaries = {"/opt/app/bin/app"};
  auto g = gather_facts(o);
  ASSERT_EQ(g.facts.binaries.at(0).binary, "/opt/app/bin/app");
  auto r = diagnose(g.facts);
  expect_finding(r, "cuda-lib-unresolvable");
  f.copy(DLREADY_FAKE_NEEDS_ZLIB, "/opt/app/lib/libapp.so");
  o.binaries = {"/opt/app/lib/libapp.so"};
  auto z = diagnose(gather_facts(o).facts);
  expect_finding(z, "lib-unresolvable");
  EXPECT_NE(get(z, "lib-unresolvable").evidence.at(0).find("libz.so.1"), std::string::npos);
}

// Issue 62, item 5: --binary naming the torch's own libtorch_cuda.so is one closure, not two of
// different sizes (one without what cuDNN opens by name).
TEST(Scenario, ABinaryThatIsTheTorchLibraryIsResolvedOnce) {
  Fixture f;
  healthy_gpu_machine(f);
  add_wheel_libraries(f, kSp);
  auto o = f.options();
  o.binaries = {std::string(kSp) + "/torch/lib/libtorch_cuda.so"};
  auto g = gather_facts(o);
  ASSERT_EQ(g.facts.binaries.size(), 1u);
  EXPECT_TRUE(g.facts.binaries[0].requested);
  bool graph = false;
  for (const auto& l : g.facts.binaries[0].libraries) graph |= l.name == "libcudnn_graph.so.9";
  EXPECT_TRUE(graph) << "what cuDNN opens by name is in the one closure";
}

// Issue scenarios: new GPU with an old wheel, old GPU with a new wheel (published arch lists).
TEST(Scenario, ArchNotSupportedRtx5090WithCu124Wheel) {
  Fixture f;
  healthy_gpu_machine(f);
  f.write("/usr/share/misc/pci.ids", "10de  NVIDIA Corporation\n\t2b85  GB202 [GeForce RTX 5090]\n");
  write_driver_conf(f, "devices=1\ndev0.name=NVIDIA GeForce RTX 5090\ndev0.cc=12.0\n");
  add_torch_venv(f, "/home/alice/venv", TorchSpec{"2.5.1+cu124", "12.4", {}, {}});
  auto r = f.report();
  expect_finding(r, "arch-not-supported");
  auto& x = get(r, "arch-not-supported");
  EXPECT_NE(x.evidence.at(0).find("sm_120"), std::string::npos) << x.evidence.at(0);
  EXPECT_NE(x.evidence.at(1).find("5.0;6.0;7.0;7.5;8.0;8.6;9.0"), std::string::npos) << x.evidence.at(1);
  EXPECT_NE(x.fix.at(1).find("/whl/cu130"), std::string::npos) << x.fix.at(1);
  ASSERT_EQ(r.verdict.torch.size(), 1u);
  EXPECT_TRUE(r.verdict.torch[0].cuda_available) << "is_available() is True; the kernels are what fail";
  EXPECT_NE(r.verdict.torch[0].reason.find("arch-not-supported"), std::string::npos);
}

TEST(Scenario, ArchNotSupportedGtx1080TiWithCu130Wheel) {
  Fixture f;
  healthy_gpu_machine(f);
  write_driver_conf(f, "devices=1\ndev0.name=NVIDIA GeForce GTX 1080 Ti\ndev0.cc=6.1\n");
  auto r = f.report();
  expect_finding(r, "arch-not-supported");
  EXPECT_NE(get(r, "arch-not-supported").fix.at(1).find("/whl/cu126"), std::string::npos)
      << "the newest line that still ships sm_60 code";
  EXPECT_NE(r.recommendations.at(0).commands.at(1).find("/whl/cu126"), std::string::npos);
}

// Issue scenario: driver 470 with a cu121 wheel: the install that fits now, and the upgrade.
TEST(Scenario, Driver470WithCu121WheelRecommendsWhatFits) {
  Fixture f;
  healthy_gpu_machine(f);
  replace_driver(f, "470.82.01", "devices=1\ndev0.name=NVIDIA GeForce RTX 3090\ndev0.cc=8.6\ncuda.driver_version=11040\n");
  add_torch_venv(f, "/home/alice/venv", TorchSpec{"2.1.2+cu121", "12.1", {}, {}});
  auto r = f.report();
  expect_finding(r, "driver-too-old");
  ASSERT_EQ(r.recommendations.size(), 2u);
  EXPECT_NE(r.recommendations[0].commands[1].find("'torch==2.7.*' torchvision --index-url https://download.pytorch.org/whl/cu118"),
            std::string::npos) << r.recommendations[0].commands[1];
  // The newest release in the tables (2.15: PyPI's cu132 build, the one the tables know) needs R580.
  EXPECT_NE(r.recommendations[1].title.find(">= 580.65.06 to run PyTorch 2.15 (cu132)"), std::string::npos)
      << r.recommendations[1].title;
}

// Without a working driver the GPU's compute capability comes from its PCI id.
TEST(Scenario, ArchCheckFromPciIdWhenTheDriverIsDown) {
  Fixture f;
  add_base_system(f);
  add_nvidia_gpu(f, "0000:01:00.0", "2b85", "nouveau");
  f.write("/proc/modules", "nouveau 1 0 - Live 0x0\n");
  add_torch_venv(f, "/home/alice/venv", TorchSpec{"2.5.1+cu124", "12.4", {}, {}});
  auto r = f.report();
  expect_finding(r, "nouveau-loaded");
  expect_finding(r, "arch-not-supported");
  EXPECT_NE(get(r, "arch-not-supported").evidence.at(0).find("sm_120 (compute capability from the PCI id table)"),
            std::string::npos) << get(r, "arch-not-supported").evidence.at(0);
}

TEST(Scenario, LibtorchCudaDroppedByAsNeeded) {
  Fixture f;
  healthy_gpu_machine(f);
  f.copy(DLREADY_FAKE_TORCH_CPU, "/opt/libtorch/lib/libtorch_cpu.so");
  f.copy(DLREADY_FAKE_APP_CPU_ONLY, "/opt/app/bin/app");
  auto o = f.options();
  o.binaries = {"/opt/app/bin/app"};
  EXPECT_FALSE(has_finding(diagnose(gather_facts(o).facts), "libtorch-cuda-not-linked")) << "a CPU-only LibTorch";
  f.copy(DLREADY_FAKE_TORCH_CUDA, "/opt/libtorch/lib/libtorch_cuda.so");
  auto r = diagnose(gather_facts(o).facts);
  expect_finding(r, "libtorch-cuda-not-linked");
  EXPECT_NE(get(r, "libtorch-cuda-not-linked").fix.at(1).find("--no-as-needed"), std::string::npos);
  // libtorch_cuda.so itself (it links libtorch_cpu.so) is not a program that lost it.
  f.copy(DLREADY_FAKE_APP_CPU_ONLY, "/opt/libtorch/lib/libtorch_cuda.so");
  o.binaries = {"/opt/libtorch/lib/libtorch_cuda.so"};
  EXPECT_FALSE(has_finding(diagnose(gather_facts(o).facts), "libtorch-cuda-not-linked"));
}

// A damaged libtorch_cuda.so inside a found environment is a finding about that file; the doctor
// carries on (it is not a --binary the user gave).
TEST(Scenario, TorchLibraryDamaged) {
  Fixture f;
  healthy_gpu_machine(f);
  add_wheel_libraries(f, kSp);
  // A 64-bit little-endian ELF header whose program header entries claim 0xFFFF bytes each.
  std::string elf(64, '\0');
  elf.replace(0, 4, "\x7f" "ELF");
  elf[4] = 2, elf[5] = 1, elf[6] = 1;
  elf[0x36] = '\xff', elf[0x37] = '\xff';  // e_phentsize
  elf[0x38] = 1;                           // e_phnum
  f.write(std::string(kSp) + "/torch/lib/libtorch_cuda.so", elf);
  auto r = f.report();
  expect_finding(r, "torch-library-damaged", /*cuda_usable_false=*/false);
  EXPECT_NE(get(r, "torch-library-damaged").evidence.at(0).find("unexpected program header size"), std::string::npos)
      << get(r, "torch-library-damaged").evidence.at(0);
}

// A PCI bus the user may not read is "cannot tell", never "no GPU" (run as nobody when root: root
// reads everything).
TEST(Scenario, GpuPresenceUnknownWhenThePciBusCannotBeRead) {
  Fixture f;
  add_base_system(f);
  add_nvidia_gpu(f, "0000:01:00.0", "2330");
  ASSERT_EQ(::chmod(f.host("/sys/bus/pci/devices").c_str(), 0700), 0);
  ASSERT_EQ(::chmod(f.root.c_str(), 0755), 0);
  std::string as_other = ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  if (::geteuid() != 0) {
    ASSERT_EQ(::chmod(f.host("/sys/bus/pci/devices").c_str(), 0), 0);
  }
  auto out = command_output(as_other + DLREADY_BINARY + " doctor --no-driver-probe --root " + f.root +
                            " 2>&1; echo rc=$?");
  ::chmod(f.host("/sys/bus/pci/devices").c_str(), 0755);
  EXPECT_NE(out.find("[gpu-presence-unknown]"), std::string::npos) << out;
  EXPECT_EQ(out.find("[no-nvidia-gpu]"), std::string::npos) << out;
  EXPECT_NE(out.find("rc=1"), std::string::npos) << out;
}

// Every catalogue id has a scenario above (keeps the two lists honest).
TEST(Scenario, EveryCatalogueIdIsExercised) {
  const std::set<std::string> covered = {
      "no-nvidia-gpu", "nouveau-loaded", "driver-not-loaded", "driver-reboot-required",
      "nvidia-uvm-missing", "device-node-permission", "libcuda-missing", "libcuda-stub",
      "libcuda-load-failed", "driver-symbol-missing", "driver-library-mismatch",
      "cuda-compat-on-unsupported-gpu", "fabric-manager-missing", "driver-probe-hang",
      "driver-probe-crash", "cuda-init-failed", "driver-too-old", "driver-does-not-drive-gpu",
      "cuda-visible-devices-hides-all", "cuda-visible-devices-invalid", "alloc-conf-invalid",
      "compute-mode-prohibited", "compute-mode-exclusive", "mig-without-instances",
      "mig-pending-reset", "gpu-count-mismatch", "gpu-bar-unassigned", "pcie-link-degraded",
      "hybrid-graphics", "gpu-memory-busy", "gpu-clocks-slowed", "wsl-windows-driver-missing",
      "wsl-linux-driver-installed", "container-without-gpu", "container-missing-compute-capability",
      "shm-too-small", "torch-not-installed", "torch-cpu-only", "torch-duplicate-installs",
      "torch-cuda-wheel-missing", "torch-cuda-wheel-version-mismatch",
      "cuda-toolkit-torch-mismatch", "libtorch-abi-mismatch", "blas-reference",
      "cuda-lib-unresolvable", "cuda-lib-shadowed", "cuda-lib-second-copy", "lib-unresolvable",
      "arch-not-supported", "libtorch-cuda-not-linked", "torch-library-damaged",
      "gpu-presence-unknown", "cpu-oversubscribed", "dlready-module-missing",
      // doctor_platform_scenarios_test.cpp; fatbin_test.cpp (ptx-jit-only: a library nvcc builds)
      "secure-boot-blocks-driver", "cdi-spec-driver-mismatch", "socket-ifname-missing",
      "nccl-variables-set", "ptx-jit-only", "gpu-open-to-all-users",
      "symbol-version-missing" /* ld_resolver_test.cpp */, "windows-nvcuda-missing",
      "windows-long-paths-disabled", "windows-python-store-stub", "windows-vc-runtime-missing",
      "windows-torch-dll-missing", "windows-python-architecture-mismatch",
      "windows-python-on-power-saving-gpu",
      "windows-gpu-watchdog" /* windows_doctor_test.cpp, under wine */, "macos-too-old-for-mps",
      "mac-torch-needs-newer-macos", "mac-python-under-rosetta", "mac-intel-no-new-torch",
      "mac-virtual-machine-no-mps", "torch-built-without-mps", "mac-no-metal-device-for-mps",
      "mac-python-no-torch-wheels", "mac-pip-externally-managed", "mac-cuda-index-configured",
      "mac-two-openmp-runtimes", "mps-memory-limit-off", "mps-watermark-invalid",
      "mps-cpu-fallback-on" /* macos_doctor_test.cpp, fixture Macs replayed */,
      "jetson-needs-jetpack-wheel", "grace-needs-open-kernel-modules",
      "gb10-capability-warning-harmless",
      "library-misaligned-for-page-size" /* arm_doctor_test.cpp */,
      "jetson-wheel-libraries-missing", "jetson-torch-needs-numpy1",
      "jetson-container-without-nvidia-runtime", "orin-jetpack7-code-unverified",
      "jemalloc-on-large-pages", "hbm-node-page-cache",
      "triton-ptxas-too-old" /* arm_platform_test.cpp */,
      "active-env-without-torch" /* newcomer_paths_test.cpp */, "torch-needs-numpy1",
      "library-symbol-missing", "wsl1-no-gpu", "alloc-conf-conflict",
      "python-not-the-active-env" /* real_failures_test.cpp */};
  for (const auto& e : catalogue()) EXPECT_TRUE(covered.count(e.id)) << e.id << " has no scenario";
}

}  // namespace
}  // namespace dlready::test
