#include "facts/facts.hpp"

#include "facts/fact_json.hpp"

namespace dlready {
namespace {

using nlohmann::json;

// The PCI functions as one list, each saying which list it is in.
json pci_json(const Facts& f) {
  json pci = json::array();
  for (const auto* list : {&f.pci.nvidia, &f.pci.other_gpus})
    for (const auto& g : *list) {
      json one = fact_group_json(g, pci_function_fields());
      one["nvidia"] = list == &f.pci.nvidia;
      pci.push_back(one);
    }
  return pci;
}

}  // namespace

const FactTable<Facts>& facts_fields() {
  static const FactTable<Facts> kFields = {
      {"root", &Facts::root},
      {"os", +[](const Facts& f) { return fact_group_json(f.os, os_fields()); }},
      {"pci", pci_json},
      {"torch_index",
       +[](const Facts& f) { return f.torch_index ? fact_group_json(*f.torch_index, index_releases_fields()) : json(); }},
      {"kernel_driver", +[](const Facts& f) { return fact_group_json(f.kernel, kernel_driver_fields()); }},
      {"device_nodes", +[](const Facts& f) { return fact_group_json(f.nodes, device_nodes_fields()); }},
      {"libcuda", +[](const Facts& f) { return fact_group_json(f.libcuda, library_location_fields()); }},
      {"libnvidia_ml", +[](const Facts& f) { return fact_group_json(f.libnvml, library_location_fields()); }},
      {"driver_api", +[](const Facts& f) { return fact_group_json(f.driver, driver_api_fields()); }},
      {"nvml", +[](const Facts& f) { return fact_group_json(f.nvml, nvml_fields()); }},
      {"environment", +[](const Facts& f) { return json(f.env.vars); }},
      {"cuda_toolkits", +[](const Facts& f) { return fact_list_json(f.cuda_libs.toolkits, cuda_toolkit_fields()); }},
      {"cuda_libraries",
       +[](const Facts& f) { return fact_list_json(f.cuda_libs.libraries, library_location_fields()); }},
      {"python_envs", +[](const Facts& f) { return fact_list_json(f.python.envs, python_env_fields()); }},
      {"python_on_path", +[](const Facts& f) {
         if (!f.python.python_on_path) return json();
         return json{{"path", *f.python.python_on_path},
                     {"prefix", f.python.python_on_path_prefix ? json(*f.python.python_on_path_prefix) : json()},
                     {"via", f.python.python_on_path_via ? json(*f.python.python_on_path_via) : json()}};
       }},
      {"libtorch", +[](const Facts& f) { return fact_list_json(f.libtorch.installs, libtorch_install_fields()); }},
      {"own_module", +[](const Facts& f) { return fact_group_json(f.own_module, own_module_fields()); }},
      {"blas", +[](const Facts& f) { return fact_group_json(f.blas, blas_fields()); }},
      {"binaries", +[](const Facts& f) { return fact_list_json(f.binaries, resolution_fields()); }},
      {"windows", +[](const Facts& f) { return f.windows ? fact_group_json(*f.windows, windows_fields()) : json(); }},
      {"macos", +[](const Facts& f) { return f.macos ? fact_group_json(*f.macos, macos_fields()) : json(); }},
      {"arm", +[](const Facts& f) { return f.arm ? fact_group_json(*f.arm, arm_fields()) : json(); }},
  };
  return kFields;
}

}  // namespace dlready
