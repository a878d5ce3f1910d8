#include "facts/facts_python.hpp"

#include "facts/fact_json.hpp"

namespace dlready {

const FactTable<PythonEnv>& python_env_fields() {
  using E = PythonEnv;
  static const FactTable<E> kFields = {
      {"prefix", &E::prefix},
      {"kind", &E::kind},
      {"active", &E::active},
      {"active_by", &E::active_by},
      {"system_site_packages", &E::system_site_packages},
      {"python_version", &E::python_version},
      {"python_full_version", &E::python_full_version},
      {"site_packages", &E::site_packages},
      {"torch", +[](const E& e) { return fact_list_json(e.torch, torch_install_fields()); }},
      {"distributions", &E::distributions},
      {"conda_packages", +[](const E& e) {
         nlohmann::json out = nlohmann::json::array();
         for (const auto& p : e.conda_packages)
           out.push_back({{"name", p.name}, {"version", p.version}, {"build", p.build}, {"channel", p.channel},
                          {"depends", p.depends}});
         return out;
       }},
  };
  return kFields;
}

const FactTable<TorchInstall>& torch_install_fields() {
  using T = TorchInstall;
  static const FactTable<T> kFields = {
      {"site_packages", &T::site_packages},
      {"version", &T::version},
      {"cuda", &T::cuda},
      {"dist_version", &T::dist_version},
      {"has_libtorch_cuda", &T::has_libtorch_cuda},
      {"xnnpack", &T::xnnpack},
      {"nvidia_pins", &T::nvidia_pins},
      {"nvidia_installed", &T::nvidia_installed},
  };
  return kFields;
}

const FactTable<LibtorchInstall>& libtorch_install_fields() {
  using L = LibtorchInstall;
  static const FactTable<L> kFields = {
      {"path", &L::path},
      {"build_version", &L::build_version},
      {"cxx11_abi", &L::cxx11_abi},
  };
  return kFields;
}

const FactTable<OwnModuleFacts>& own_module_fields() {
  using M = OwnModuleFacts;
  static const FactTable<M> kFields = {
      {"path", &M::path},
      {"libtorch_dir", &M::libtorch_dir},
      {"torch_version", &M::torch_version},
      {"nccl_version", &M::nccl_version},
      {"built_by", &M::built_by},
      {"error", &M::error},
  };
  return kFields;
}

}  // namespace dlready
