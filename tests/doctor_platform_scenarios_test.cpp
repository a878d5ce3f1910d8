// Scenarios for the rules around the driver (diagnose/rules_services.cpp): Secure Boot refusing the
// module, a CDI spec left from an older driver, NCCL/Gloo interface variables naming no interface,
// NCCL debugging variables left set.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diagnose/rules.hpp"
#include "probe/linux/probes.hpp"
#include "report/render.hpp"
#include "fixture.hpp"

namespace dlready::test {
namespace {

bool has(const Report& r, const std::string& id) {
  for (const auto& x : r.findings)
    if (x.id == id) return true;
  return false;
}

const Finding& get(const Report& r, const std::string& id) {
  for (const auto& x : r.findings)
    if (x.id == id) return x;
  throw std::runtime_error("no finding " + id);
}

const std::string kSecureBootVar = "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c";

TEST(PlatformScenario, SecureBootBlocksTheDriver) {
  Fixture f;
  add_base_system(f);
  add_nvidia_gpu(f, "0000:01:00.0", "2684", "");
  write_kernel_module(f, "/lib/modules/6.1.0-test-amd64/updates/dkms/nvidia.ko", "580.65.06");
  add_torch_venv(f, "/home/alice/venv", TorchSpec{});
  f.write(kSecureBootVar, std::string("\x06\x00\x00\x00\x01", 5));
  auto r = f.report();
  ASSERT_TRUE(has(r, "secure-boot-blocks-driver"));
  EXPECT_TRUE(has(r, "driver-not-loaded"));
  EXPECT_NE(get(r, "secure-boot-blocks-driver").fix.at(1).find("mokutil --import"), std::string::npos);
  EXPECT_NE(get(r, "secure-boot-blocks-driver").evidence.back().find("dkms/nvidia.ko"), std::string::npos);
  f.write(kSecureBootVar, std::string("\x06\x00\x00\x00\x00", 5));  // Secure Boot off: not the cause
  EXPECT_FALSE(has(f.report(), "secure-boot-blocks-driver"));
  Fixture loaded;  // on, and the (signed) module loaded: fine
  healthy_gpu_machine(loaded);
  loaded.write(kSecureBootVar, std::string("\x06\x00\x00\x00\x01", 5));
  EXPECT_FALSE(has(loaded.report(), "secure-boot-blocks-driver"));
}

TEST(PlatformScenario, CdiSpecFromAnOlderDriver) {
  Fixture f;
  healthy_gpu_machine(f);  // driver 580.65.06
  const std::string spec =
      "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ncontainerEdits:\n  mounts:\n"
      "  - hostPath: /usr/lib/x86_64-linux-gnu/libcuda.so.570.124.06\n"
      "    containerPath: /usr/lib/x86_64-linux-gnu/libcuda.so.570.124.06\n"
      "  - hostPath: /usr/lib/x86_64-linux-gnu/libcuda.so.1\n";
  f.write("/etc/cdi/nvidia.yaml", spec);
  auto r = f.report();
  ASSERT_TRUE(has(r, "cdi-spec-driver-mismatch"));
  EXPECT_EQ(get(r, "cdi-spec-driver-mismatch").evidence.at(0), "/etc/cdi/nvidia.yaml mounts files of driver 570.124.06");
  EXPECT_EQ(get(r, "cdi-spec-driver-mismatch").fix.at(0), "sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml");
  f.write("/etc/cdi/nvidia.yaml", "kind: nvidia.com/gpu\n  - hostPath: /usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06\n");
  EXPECT_FALSE(has(f.report(), "cdi-spec-driver-mismatch")) << "regenerated for this driver";
  f.write("/var/run/cdi/other.json", R"({"kind":"vendor.com/fpga","x":"libfoo.so.570.1.2"})");
  EXPECT_FALSE(has(f.report(), "cdi-spec-driver-mismatch")) << "another vendor's spec";
  f.mkdir("/etc/cdi/dir.yaml");  // hostile input: a directory, a FIFO-like name, non-UTF-8 bytes
  f.write("/etc/cdi/bytes.yaml", std::string("nvidia.com/gpu \xff\xfe libcuda.so.\xff", 28));
  EXPECT_FALSE(has(f.report(), "cdi-spec-driver-mismatch"));
  EXPECT_EQ(parse_cdi_driver_versions("libcuda.so.1 libnvidia-ml.so.580.65.06 libx.so.2.3 a.so.999.1."),
            (std::vector<std::string>{"580.65.06", "999.1"}));
}

TEST(PlatformScenario, SocketInterfaceVariablesNamingNoInterface) {
  Fixture f;
  healthy_gpu_machine(f);
  for (const char* i : {"lo", "eth0", "ib0"}) f.write(std::string("/sys/class/net/") + i + "/operstate", "up\n");
  f.env["NCCL_SOCKET_IFNAME"] = "eno1";
  f.env["GLOO_SOCKET_IFNAME"] = "eth";  // Gloo wants the exact name
  auto r = f.report();
  ASSERT_TRUE(has(r, "socket-ifname-missing"));
  int n = 0;
  for (const auto& x : r.findings) n += x.id == "socket-ifname-missing";
  EXPECT_EQ(n, 2);
  EXPECT_EQ(get(r, "socket-ifname-missing").evidence.at(1), "interfaces here (/sys/class/net): eth0, ib0, lo");
  for (const char* fine : {"eth", "=eth0", "eno1,ib", "^docker,lo"}) {
    f.env["NCCL_SOCKET_IFNAME"] = fine;  // NCCL: prefixes, "=" exact, "^" excludes
    f.env["GLOO_SOCKET_IFNAME"] = "eth0";
    EXPECT_FALSE(has(f.report(), "socket-ifname-missing")) << fine;
  }
}

TEST(PlatformScenario, NcclDebuggingVariablesLeftSet) {
  Fixture f;
  healthy_gpu_machine(f);
  f.env["NCCL_DEBUG"] = "WARN";
  EXPECT_FALSE(has(f.report(), "nccl-variables-set")) << "WARN is NCCL's quiet default";
  f.env["NCCL_P2P_DISABLE"] = "1";
  f.env["NCCL_DEBUG"] = "INFO";
  auto r = f.report();
  ASSERT_TRUE(has(r, "nccl-variables-set"));
  EXPECT_EQ(get(r, "nccl-variables-set").severity, Severity::info);
  EXPECT_EQ(get(r, "nccl-variables-set").evidence.size(), 2u);
}

// The tutorial's "restrict access to GPU resources": nodes open to everyone are an info finding
// with the module parameters that close them; a group-only setup names who can reach the GPUs.
TEST(PlatformScenario, GpuDeviceNodesOpenToEveryUser) {
  Fixture f;
  healthy_gpu_machine(f);  // the driver's default: 0666
  f.write("/proc/driver/nvidia/params", "ResmanDebugLevel: 4294967295\nDeviceFileUID: 0\nDeviceFileGID: 0\nDeviceFileMode: 438\n");
  auto r = f.report();
  ASSERT_TRUE(has(r, "gpu-open-to-all-users"));
  const auto& x = get(r, "gpu-open-to-all-users");
  EXPECT_EQ(x.severity, Severity::info);
  // (fixture nodes are plain files: "-rw-rw-rw-" where a real one reads "crw-rw-rw-")
  EXPECT_EQ(x.evidence.at(0), "/dev/nvidiactl -rw-rw-rw- root:root");
  EXPECT_EQ(x.evidence.back(), "/proc/driver/nvidia/params: DeviceFileUID: 0, DeviceFileGID: 0, DeviceFileMode: 438 (decimal; 438 = 0666)");
  EXPECT_NE(x.fix.at(0).find("NVreg_DeviceFileMode=0660"), std::string::npos);
  EXPECT_NE(section_facts(f.facts(), "device-nodes").back().find("every local user"), std::string::npos);
  // Restricted to the video group (gid 44), alice a member: no finding, and the facts say who.
  f.write("/etc/group", "root:x:0:\nvideo:x:44:alice\nalice:x:1000:\n");
  for (const char* n : {"/dev/nvidiactl", "/dev/nvidia0", "/dev/nvidia-uvm"}) {
    ASSERT_EQ(::chmod(f.host(n).c_str(), 0660), 0);
    ASSERT_EQ(::chown(f.host(n).c_str(), 0, 44), 0);
  }
  r = f.report();
  EXPECT_FALSE(has(r, "gpu-open-to-all-users"));
  EXPECT_FALSE(has(r, "device-node-permission")) << "alice is in video";
  EXPECT_EQ(section_facts(f.facts(), "device-nodes").back(), "GPUs usable by root and group video (alice), and root");
}

}  // namespace
}  // namespace dlready::test
