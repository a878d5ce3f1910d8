#include "facts/facts_kernel_driver.hpp"

namespace dlready {

const FactTable<KernelDriverFacts>& kernel_driver_fields() {
  using S = SnapshotAs;
  using K = KernelDriverFacts;
  static const FactTable<K> kFields = {
      {"loaded_version", &K::loaded_version, S::text, "kernel module"},
      {"proc_version", &K::proc_version_line},
      {"open_kernel_module", &K::open_kernel_module},
      {"nvidia_loaded", &K::nvidia_loaded},
      {"nvidia_uvm_loaded", &K::nvidia_uvm_loaded},
      {"nvidia_drm_loaded", &K::nvidia_drm_loaded},
      {"nouveau_loaded", &K::nouveau_loaded},
      {"nova_core_loaded", &K::nova_core_loaded},
      {"module_file", &K::module_file},
      {"module_file_version", &K::module_file_version},
      {"fabric_manager_installed", &K::fabric_manager_installed},
      {"secure_boot", &K::secure_boot},
  };
  return kFields;
}

}  // namespace dlready
