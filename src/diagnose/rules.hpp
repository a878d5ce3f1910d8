// Rules: pure functions from facts to findings, verdict and recommendations. No I/O here.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "facts/facts.hpp"
#include "facts/findings.hpp"
#include "compat/compat.hpp"

namespace dlready {

// The findings, verdict and recommendations for the facts, by the rule groups of the platform
// they come from (diagnose.cpp, platform/platform_record.hpp).
Report diagnose(const Facts& facts);

// Derived facts several rules share, computed once.
struct Derived {
  int pci_gpus = 0;                       // NVIDIA display-class functions
  bool gpu_evidence = false;              // PCI GPU, WSL GPU bridge, or a device answering
  bool in_container = false;
  bool container_blocked = false;         // container-without-gpu applies
  std::optional<std::string> driver_version;  // best known: kernel module, NVML, libcuda file name
  std::optional<std::string> driver_max_cuda; // "13.0"
  std::optional<int> physical_gpus;       // NVML count, else PCI GPU count
  std::vector<std::string> known_uuids;   // from NVML / driver API
  // Compute capability of each GPU: from the driver when it answered, else from the PCI id.
  struct GpuArch {
    std::string label;  // "cuda:0 NVIDIA H100" or "0000:01:00.0 GeForce RTX 5090"
    int major = 0, minor = 0;
    std::string source;  // "driver" or "PCI id table"
  };
  std::vector<GpuArch> gpu_archs;
  std::string machine = "x86_64";  // the examined machine's processor: whose wheels (tables) apply
};
Derived derive(const Facts& f);
// aarch64 (rules_arm.cpp): a Jetson's integrated GPU from its device tree; the fix for a CPU-only
// torch on an aarch64 server; the Jetson and Grace rules.
std::optional<Derived::GpuArch> tegra_gpu(const ArmFacts& a);
std::vector<std::string> aarch64_cuda_fix();
// An Orin on JetPack 7.2 or later (L4T R39): it runs SBSA wheels, and whether their sm_80 code runs
// on its 8.7 is not established (torch's own table says no, one public log says yes).
bool orin_on_sbsa(const Facts& f);
void rules_arm(const Facts& f, const Derived& d, std::vector<Finding>& out);

// "0000:00:06.0" (sysfs, CUDA) and NVML's "00000000:00:06.0" name one PCI function: the domain as
// a number, the rest case-insensitively.
bool same_pci_address(const std::string& a, const std::string& b);

// CUDA_VISIBLE_DEVICES as CUDA reads it: entries in order until the first invalid one.
struct VisibleDevices {
  std::vector<std::string> accepted;
  std::vector<std::string> rejected;  // the first bad entry and everything after it
  std::string reason;                 // why the first rejected entry is bad
};
VisibleDevices parse_cuda_visible_devices(const std::string& value, std::optional<int> gpu_count,
                                          const std::vector<std::string>& uuids);

// PYTORCH_CUDA_ALLOC_CONF / PYTORCH_ALLOC_CONF against the keys and values PyTorch accepts.
struct AllocConfCheck {
  std::vector<std::string> problems;     // empty: valid
  std::optional<std::string> corrected;  // the value with every problem fixed, when each has an obvious fix
};
AllocConfCheck check_alloc_conf(const std::string& value);
void alloc_conf_rules(const Facts& f, std::vector<Finding>& out);

// cpu-oversubscribed: more runnable work than processors (the doctor's finding, and the note
// `dlready train` prints before a CPU run). nullopt when the CPUs are not oversubscribed.
// cuda_usable: the fix offers the GPU only where there is one to offer.
std::optional<Finding> cpu_oversubscribed(const CpuLoad& load, std::optional<int> cpus, bool cuda_usable);

// The rule groups (each appends to `out`).
void rules_system(const Facts& f, const Derived& d, std::vector<Finding>& out);
void rules_driver(const Facts& f, const Derived& d, std::vector<Finding>& out);
void rules_software(const Facts& f, const Derived& d, std::vector<Finding>& out);
// The Python environments' PyTorch on every platform, worded by the platform's record (rules_python.cpp).
void rules_python(const Facts& f, const Derived& d, std::vector<Finding>& out);
// "torch 2.11.0+cu130 in <site-packages>": how the rules name an install in evidence.
std::string torch_label(const TorchInstall& t);
void rules_libraries(const Facts& f, const Derived& d, std::vector<Finding>& out);
void rules_services(const Facts& f, const Derived& d, std::vector<Finding>& out);
void toolkit_rules(const Facts& f, std::vector<Finding>& out);
// What NVML says of each GPU (clocks slowed, compute mode, MIG, memory in use) and what
// CUDA_VISIBLE_DEVICES lets CUDA see: every platform with an NVIDIA driver (rules_devices.cpp).
void rules_devices(const Facts& f, const Derived& d, std::vector<Finding>& out);
// Windows (facts from probe/windows/): the rules whose evidence or fix is Windows' own.
void rules_windows(const Facts& f, const Derived& d, std::vector<Finding>& out);
Verdict windows_verdict(const Facts& f, const Derived& d, const std::vector<Finding>& findings);
void rules_macos(const Facts& f, const Derived& d, std::vector<Finding>& out);
Verdict macos_verdict(const Facts& f, const Derived& d, const std::vector<Finding>& findings);
Verdict make_verdict(const Facts& f, const Derived& d, const std::vector<Finding>& findings);
std::vector<Recommendation> make_recommendations(const Facts& f, const Derived& d);

// The torch install Python would import first (active env, else first env with torch).
const TorchInstall* primary_torch(const Facts& f);
// The best install command for this machine's driver and GPUs (pip form).
std::string pip_install_command(const Facts& f, const Derived& d);
// pip_install_command with why it is the fix ("a build with code for this GPU"), where the line is a
// plain pip command (a driver upgrade or a source build already says why).
std::string pip_install_command_for(const Facts& f, const Derived& d, const std::string& why);
// LD_LIBRARY_PATH's entries without `dir` (compared as normalised paths): how the variable reads
// once the entry that puts a wrong copy first is dropped.
std::vector<std::string> ld_library_path_without_dir(const Facts& f, const std::string& dir);
// "drop DIR from LD_LIBRARY_PATH: unset LD_LIBRARY_PATH" (or the export that keeps the rest).
std::string drop_from_ld_library_path(const Facts& f, const std::string& dir);
// The (release, CUDA variant) `dlready setup` plans for this machine from the tables: the newest
// with code for every GPU here that the driver runs natively, one release back at most for that;
// else the newest it runs at all.
std::optional<TorchVariant> best_torch_variant(const Facts& f, const Derived& d);

}  // namespace dlready
