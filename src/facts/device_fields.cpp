#include "facts/device_fields.hpp"

#include "core/text.hpp"

namespace dlready {

const std::vector<DeviceField<CudaDevice>>& cuda_device_fields() {
  static const std::vector<DeviceField<CudaDevice>> kFields = {
      {"name", &CudaDevice::name},
      {"cc_major", &CudaDevice::cc_major},
      {"cc_minor", &CudaDevice::cc_minor},
      {"sm_count", &CudaDevice::sm_count},
      {"memory_bytes", &CudaDevice::memory_bytes},
      {"pci_bus_id", &CudaDevice::pci_bus_id},
      {"uuid", &CudaDevice::uuid},
      {"compute_mode", &CudaDevice::compute_mode},
  };
  return kFields;
}

const std::vector<DeviceField<NvmlDevice>>& nvml_device_fields() {
  static const std::vector<DeviceField<NvmlDevice>> kFields = {
      {"name", &NvmlDevice::name},
      {"pci_bus_id", &NvmlDevice::pci_bus_id},
      {"uuid", &NvmlDevice::uuid},
      {"compute_mode", &NvmlDevice::compute_mode},
      {"mig_current", &NvmlDevice::mig_current},
      {"mig_pending", &NvmlDevice::mig_pending},
      {"mig_instances", &NvmlDevice::mig_instances},
      {"persistence", &NvmlDevice::persistence},
      {"memory_total", &NvmlDevice::memory_total},
      {"memory_used", &NvmlDevice::memory_used},
      {"pcie_gen", &NvmlDevice::pcie_gen},
      {"pcie_gen_max", &NvmlDevice::pcie_gen_max},
      {"pcie_width", &NvmlDevice::pcie_width},
      {"pcie_width_max", &NvmlDevice::pcie_width_max},
      {"bar1_total", &NvmlDevice::bar1_total},
      {"clocks_event_reasons", &NvmlDevice::clocks_event_reasons},
      {"driver_model", &NvmlDevice::driver_model},
  };
  return kFields;
}

template <class Device>
std::optional<std::string> field_text(const Device& d, const DeviceField<Device>& f) {
  return std::visit(
      [&](auto member) -> std::optional<std::string> {
        const auto& v = d.*member;
        if (!v) return std::nullopt;
        if constexpr (std::is_same_v<std::decay_t<decltype(*v)>, std::string>) return *v;
        else return std::to_string(*v);
      },
      f.member);
}

template <class Device>
bool set_field(Device& d, const DeviceField<Device>& f, const std::string& text) {
  return std::visit(
      [&](auto member) {
        auto& v = d.*member;
        using T = std::decay_t<decltype(*v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          v = text;
          return true;
        } else {
          auto n = parse_int(text);
          if (!n || (std::is_unsigned_v<T> && *n < 0)) return false;
          v = static_cast<T>(*n);
          return true;
        }
      },
      f.member);
}

template std::optional<std::string> field_text(const CudaDevice&, const DeviceField<CudaDevice>&);
template std::optional<std::string> field_text(const NvmlDevice&, const DeviceField<NvmlDevice>&);
template bool set_field(CudaDevice&, const DeviceField<CudaDevice>&, const std::string&);
template bool set_field(NvmlDevice&, const DeviceField<NvmlDevice>&, const std::string&);

}  // namespace dlready
