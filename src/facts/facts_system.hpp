// The machine itself: the OS, the CPUs and how busy they are, memory, compilers.
// Plain data (std::nullopt = unknown); the tables say how each field is written (facts/fact_table.hpp).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "facts/fact_table.hpp"

namespace dlready {

// How busy the CPUs are right now: /proc/loadavg, and which processes are running when the
// load exceeds the processors (a CPU training run slows tenfold beside them).
struct CpuLoad {
  std::optional<double> load_1min;            // /proc/loadavg, first field
  std::optional<int> runnable;                // /proc/loadavg, "R/T": R (includes the reader)
  std::vector<std::string> running_commands;  // comm of processes in state R (other than ours), busy only
};

struct OsFacts {
  std::optional<std::string> pretty_name;  // /etc/os-release PRETTY_NAME
  std::optional<std::string> id;           // /etc/os-release ID (debian, ubuntu, rhel, ...)
  std::optional<std::string> kernel;       // /proc/sys/kernel/osrelease
  std::optional<std::string> arch;         // uname machine; under a root its loader's name, or a capture's record
  std::optional<std::string> glibc;        // from the libc.so.6 the loader finds
  std::optional<std::string> libstdcxx;    // libstdc++.so.6.0.N file name
  std::optional<std::string> container;    // docker, podman, kubernetes, lxc
  // A virtual machine (the CPU's hypervisor flag, /sys/hypervisor): its DMI vendor and product
  // ("QEMU Standard PC (Q35 + ICH9, 2009)", "Amazon EC2 g5.xlarge"), "hypervisor" when DMI does
  // not say; nullopt on bare metal (or where nothing says).
  std::optional<std::string> virtual_machine;
  bool wsl = false;                        // /proc/version mentions Microsoft
  bool wsl_dxg = false;                    // /dev/dxg exists
  bool wsl_libcuda = false;                // /usr/lib/wsl/lib/libcuda.so.1 exists
  std::optional<uint64_t> shm_bytes;       // size of /dev/shm
  std::optional<uint64_t> memory_bytes;    // MemTotal
  std::optional<uint64_t> swap_bytes;      // SwapTotal (0: no swap, so host memory is all there is)
  std::optional<int> cpu_count;            // processors in /proc/cpuinfo
  std::optional<std::string> cpu_model;
  CpuLoad load;
  std::optional<std::vector<std::string>> net_interfaces;  // /sys/class/net (nullopt: unreadable)
  std::vector<std::string> cpu_flags;       // /proc/cpuinfo "flags" (x86) or "Features" (arm64)
  std::vector<std::string> gcc_versions;    // the host's /usr/lib/gcc/<triplet>/<N> with cc1plus: "12"
  // `gcc --version` as collect_env prints it, from the distribution's package of the gcc on PATH:
  // "(Debian 12.2.0-14+deb12u1) 12.2.0"
  std::optional<std::string> gcc_version_text;
  std::vector<std::string> clang_versions;  // /usr/lib/llvm-<N>/lib/clang/<version>: "14.0.6"
  std::optional<std::string> cmake_version; // the cmake package's "3.25.1", else /usr/share/cmake-<X.Y>: "3.25"
};

// In the order the snapshot lists the compared ones.
const FactTable<OsFacts>& os_fields();
const FactTable<CpuLoad>& cpu_load_fields();

}  // namespace dlready
