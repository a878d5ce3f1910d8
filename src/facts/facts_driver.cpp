#include "facts/facts_driver.hpp"

#include "facts/device_fields.hpp"
#include "facts/fact_json.hpp"

namespace dlready {
namespace {

// A probed device: its index and every field of its table, null where unknown.
template <class Device>
nlohmann::json devices_json(const std::vector<Device>& devices, const std::vector<DeviceField<Device>>& fields) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& d : devices) {
    nlohmann::json j = {{"index", d.index}};
    for (const auto& f : fields)
      std::visit([&](auto member) { j[f.key] = d.*member ? nlohmann::json(*(d.*member)) : nlohmann::json(nullptr); },
                 f.member);
    out.push_back(j);
  }
  return out;
}

}  // namespace

const FactTable<DriverApiFacts>& driver_api_fields() {
  using D = DriverApiFacts;
  static const FactTable<D> kFields = {
      {"status", +[](const D& d) { return nlohmann::json(to_string(d.status)); }},
      {"library", &D::library},
      {"detail", &D::detail},
      {"init_result", &D::init_result},
      {"init_error_name", &D::init_error_name},
      {"driver_version", &D::driver_version, SnapshotAs::cuda_version, "CUDA version of the driver"},
      {"device_count", &D::device_count},
      {"devices", +[](const D& d) { return devices_json(d.devices, cuda_device_fields()); }},
      {"elapsed_ms", &D::elapsed_ms},
  };
  return kFields;
}

const FactTable<NvmlFacts>& nvml_fields() {
  using N = NvmlFacts;
  static const FactTable<N> kFields = {
      {"status", +[](const N& n) { return nlohmann::json(to_string(n.status)); }},
      {"library", &N::library},
      {"detail", &N::detail},
      {"init_result", &N::init_result},
      {"driver_version", &N::driver_version, SnapshotAs::text, "NVML driver version"},
      {"cuda_driver_version", &N::cuda_driver_version},
      {"device_count", &N::device_count},
      {"devices", +[](const N& n) { return devices_json(n.devices, nvml_device_fields()); }},
  };
  return kFields;
}

}  // namespace dlready
