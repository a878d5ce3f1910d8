#include "core/fact_fields.hpp"

namespace dlready {

const std::vector<FactField<OsFacts>>& os_fields() {
  using S = SnapshotAs;
  static const std::vector<FactField<OsFacts>> kFields = {
      {"pretty_name", &OsFacts::pretty_name, S::text},
      {"kernel", &OsFacts::kernel, S::text},
      {"arch", &OsFacts::arch, S::text},
      {"glibc", &OsFacts::glibc, S::text},
      {"libstdcxx", &OsFacts::libstdcxx, S::text},
      {"cpu_model", &OsFacts::cpu_model, S::text},
      {"cpu_count", &OsFacts::cpu_count, S::text},
      {"container", &OsFacts::container, S::text},
      {"memory_bytes", &OsFacts::memory_bytes, S::gib, "memory"},
      {"shm_bytes", &OsFacts::shm_bytes, S::gib, "/dev/shm"},
      {"swap_bytes", &OsFacts::swap_bytes, S::gib, "swap"},
      {"id", &OsFacts::id},
      {"wsl", &OsFacts::wsl},
      {"wsl_dxg", &OsFacts::wsl_dxg},
      {"wsl_libcuda", &OsFacts::wsl_libcuda},
      {"cpu_flags", &OsFacts::cpu_flags},
      {"gcc_versions", &OsFacts::gcc_versions},
      {"clang_versions", &OsFacts::clang_versions},
      {"cmake_version", &OsFacts::cmake_version},
      {"net_interfaces", &OsFacts::net_interfaces},
  };
  return kFields;
}

const std::vector<FactField<KernelDriverFacts>>& kernel_driver_fields() {
  using S = SnapshotAs;
  using K = KernelDriverFacts;
  static const std::vector<FactField<K>> kFields = {
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

const std::vector<FactField<PciFunction>>& pci_function_fields() {
  using P = PciFunction;
  static const std::vector<FactField<P>> kFields = {
      {"address", &P::address},
      {"vendor_id", &P::vendor_id},
      {"device_id", &P::device_id},
      {"class", &P::class_code},
      {"name", &P::name},
      {"driver", &P::driver},
      {"is_gpu", &P::is_gpu},
      {"link_speed", &P::link_speed},
      {"max_link_speed", &P::max_link_speed},
      {"link_width", &P::link_width},
      {"max_link_width", &P::max_link_width},
      {"bar_sizes", &P::bar_sizes},
  };
  return kFields;
}

}  // namespace dlready
