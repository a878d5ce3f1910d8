// The NVIDIA kernel driver: the loaded modules, the installed one, CDI specifications.
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

struct KernelDriverFacts {
  std::optional<std::string> proc_version_line;  // first line of /proc/driver/nvidia/version
  std::optional<std::string> loaded_version;     // loaded nvidia module version
  bool open_kernel_module = false;
  bool nvidia_loaded = false, nvidia_uvm_loaded = false, nvidia_drm_loaded = false;
  bool nouveau_loaded = false, nova_core_loaded = false;
  std::optional<std::string> module_file;         // nvidia.ko for the running kernel
  std::optional<std::string> module_file_version; // its modinfo version (uncompressed only)
  bool fabric_manager_installed = false;          // nv-fabricmanager binary or unit present
  std::optional<bool> secure_boot;                // the SecureBoot EFI variable (nullopt: not an EFI boot, unreadable)
};

// A Container Device Interface specification (nvidia-ctk cdi generate): the host files it mounts
// into containers name the driver version they were generated for.
struct CdiSpec {
  std::string path;                          // /etc/cdi/nvidia.yaml
  std::vector<std::string> driver_versions;  // from the host paths (libcuda.so.580.65.06 -> 580.65.06)
};

const FactTable<KernelDriverFacts>& kernel_driver_fields();

}  // namespace dlready
