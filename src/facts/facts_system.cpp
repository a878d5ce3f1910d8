#include "facts/facts_system.hpp"

#include "facts/fact_json.hpp"

namespace dlready {

const FactTable<OsFacts>& os_fields() {
  using S = SnapshotAs;
  static const FactTable<OsFacts> kFields = {
      {"pretty_name", &OsFacts::pretty_name, S::text},
      {"kernel", &OsFacts::kernel, S::text},
      {"arch", &OsFacts::arch, S::text},
      {"glibc", &OsFacts::glibc, S::text},
      {"libstdcxx", &OsFacts::libstdcxx, S::text},
      {"cpu_model", &OsFacts::cpu_model, S::text},
      {"cpu_count", &OsFacts::cpu_count, S::text},
      {"container", &OsFacts::container, S::text},
      {"virtual_machine", &OsFacts::virtual_machine, S::text, "virtual machine"},
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
      {"load", +[](const OsFacts& o) { return fact_group_json(o.load, cpu_load_fields()); }},
  };
  return kFields;
}

const FactTable<CpuLoad>& cpu_load_fields() {
  static const FactTable<CpuLoad> kFields = {
      {"load_1min", &CpuLoad::load_1min},
      {"runnable", &CpuLoad::runnable},
      {"running_commands", &CpuLoad::running_commands},
  };
  return kFields;
}

}  // namespace dlready
