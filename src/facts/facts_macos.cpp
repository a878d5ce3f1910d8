#include "facts/facts_macos.hpp"

#include "core/text.hpp"
#include "facts/fact_json.hpp"

namespace dlready {

std::optional<int> macos_major_from_darwin(const std::string& release) {
  auto major = parse_int(split(release, '.')[0]);
  if (!major || *major < 20 || *major > 60) return std::nullopt;  // Darwin 20 is Big Sur, macOS 11
  return static_cast<int>(*major <= 24 ? *major - 9 : *major + 1);  // Darwin 25 is macOS 26
}

std::optional<std::string> effective_macos_version(const MacosFacts& m) {
  if (!m.version_shimmed) return m.product_version;
  if (m.darwin_release)
    if (auto major = macos_major_from_darwin(*m.darwin_release)) return std::to_string(*major) + ".0";
  return std::nullopt;
}

const FactTable<MacosFacts>& macos_fields() {
  using M = MacosFacts;
  static const FactTable<M> kFields = {
      {"product_version", &M::product_version},
      {"build", &M::build},
      {"version_shimmed", &M::version_shimmed},
      {"darwin_release", &M::darwin_release},
      {"apple_silicon", &M::apple_silicon},
      {"translated", &M::translated},
      {"virtual_machine", &M::virtual_machine},
      {"model", &M::model},
      {"cpu_brand", &M::cpu_brand},
      {"pythons", +[](const M& m) { return fact_list_json(m.pythons, mac_python_fields()); }},
      {"torch", +[](const M& m) { return fact_list_json(m.torch, mac_torch_check_fields()); }},
      {"pip_indexes", &M::pip_indexes},
      {"metal", +[](const M& m) { return m.metal ? fact_group_json(*m.metal, metal_probe_fields()) : nlohmann::json(); }},
  };
  return kFields;
}

const FactTable<MacPython>& mac_python_fields() {
  using P = MacPython;
  static const FactTable<P> kFields = {
      {"prefix", &P::prefix},
      {"interpreter", &P::interpreter},
      {"cpus", &P::cpus},
      {"conda_subdir", &P::conda_subdir},
      {"externally_managed", &P::externally_managed},
      {"error", &P::error},
  };
  return kFields;
}

const FactTable<MacTorchCheck>& mac_torch_check_fields() {
  using T = MacTorchCheck;
  static const FactTable<T> kFields = {
      {"site_packages", &T::site_packages},
      {"library", &T::library},
      {"cpus", &T::cpus},
      {"minos", &T::minos},
      {"mps_built", &T::mps_built},
      {"openmp", &T::openmp},
      {"error", &T::error},
  };
  return kFields;
}

const FactTable<MetalProbe>& metal_probe_fields() {
  using P = MetalProbe;
  static const FactTable<P> kFields = {
      {"devices", +[](const P& p) { return fact_list_json(p.devices, metal_device_fields()); }},
      {"mpsgraph_gates", +[](const P& p) { return nlohmann::json(p.mpsgraph_gates); }},
      {"error", &P::error},
  };
  return kFields;
}

const FactTable<MetalDevice>& metal_device_fields() {
  using D = MetalDevice;
  static const FactTable<D> kFields = {
      {"name", &D::name},
      {"low_power", &D::low_power},
      {"mac2", &D::mac2},
  };
  return kFields;
}

}  // namespace dlready
