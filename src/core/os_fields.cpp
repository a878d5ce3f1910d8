#include "core/os_fields.hpp"

namespace dlready {

const std::vector<OsField>& os_fields() {
  using S = OsField::Snapshot;
  static const std::vector<OsField> kFields = {
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

nlohmann::json os_field_json(const OsFacts& os, const OsField& f) {
  return std::visit(
      [&](auto member) -> nlohmann::json {
        const auto& v = os.*member;
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, bool> ||
                      std::is_same_v<std::decay_t<decltype(v)>, std::vector<std::string>>)
          return v;
        else
          return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
      },
      f.member);
}

}  // namespace dlready
