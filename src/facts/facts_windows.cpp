#include "facts/facts_windows.hpp"

#include "facts/fact_json.hpp"

namespace dlready {

const FactTable<WindowsFacts>& windows_fields() {
  using W = WindowsFacts;
  static const FactTable<W> kFields = {
      {"long_paths_enabled", &W::long_paths_enabled},
      {"python_on_path", &W::python_on_path},
      {"store_stub_dir", &W::store_stub_dir},
      {"tdr_delay", &W::tdr_delay},
      {"tdr_level", &W::tdr_level},
      {"torch_dlls", +[](const W& w) { return fact_list_json(w.torch_dlls, torch_dll_check_fields()); }},
      {"dxgi_adapters", +[](const W& w) { return fact_list_json(w.dxgi_adapters, dxgi_adapter_fields()); }},
      {"dxgi_high_performance", &W::dxgi_high_performance},
      {"dxgi_minimum_power", &W::dxgi_minimum_power},
      {"dxgi_error", &W::dxgi_error},
      {"python_gpu_preferences", &W::python_gpu_preferences},
  };
  return kFields;
}

const FactTable<TorchDllCheck>& torch_dll_check_fields() {
  using T = TorchDllCheck;
  static const FactTable<T> kFields = {
      {"torch_lib", &T::torch_lib},
      {"python_exe", &T::python_exe},
      {"python_machine", &T::python_machine},
      {"torch_machine", &T::torch_machine},
      {"search_path", &T::search_path},
      {"dlls_read", &T::dlls_read},
      {"missing", +[](const T& t) { return fact_list_json(t.missing, missing_dll_fields()); }},
      {"unreadable", &T::unreadable},
  };
  return kFields;
}

const FactTable<MissingDll>& missing_dll_fields() {
  using M = MissingDll;
  static const FactTable<M> kFields = {
      {"name", &M::name},
      {"needed_by", &M::needed_by},
      {"loading", &M::loading},
  };
  return kFields;
}

const FactTable<DxgiAdapter>& dxgi_adapter_fields() {
  using A = DxgiAdapter;
  static const FactTable<A> kFields = {
      {"name", &A::name},
      {"vendor_id", &A::vendor_id},
      {"device_id", &A::device_id},
      {"dedicated_memory", &A::dedicated_memory},
      {"luid", &A::luid},
      {"software", &A::software},
  };
  return kFields;
}

}  // namespace dlready
