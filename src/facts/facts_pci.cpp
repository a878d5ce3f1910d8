#include "facts/facts_pci.hpp"

namespace dlready {

const FactTable<PciFunction>& pci_function_fields() {
  using P = PciFunction;
  static const FactTable<P> kFields = {
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
