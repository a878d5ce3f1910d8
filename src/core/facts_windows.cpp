#include "core/facts_windows.hpp"

namespace dlready {

const FactTable<WindowsFacts>& windows_fields() {
  using W = WindowsFacts;
  static const FactTable<W> kFields = {
      {"long_paths_enabled", &W::long_paths_enabled},
      {"python_on_path", &W::python_on_path},
      {"store_stub_dir", &W::store_stub_dir},
  };
  return kFields;
}

}  // namespace dlready
