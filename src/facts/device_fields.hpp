// One table per kind of device the driver probes report (CUDA driver API, NVML): each row is a
// fact's key — on the probe child's wire and in the doctor's JSON alike — and the member it fills.
// The child's emitter, the parent's parser and the JSON writer all walk these tables, so a field
// cannot be half-added: a new fact is a member in facts.hpp, a row here, and the driver call that
// fills it in the child.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "facts/facts_driver.hpp"

namespace dlready {

template <class Device>
struct DeviceField {
  const char* key;
  std::variant<std::optional<int> Device::*, std::optional<uint64_t> Device::*, std::optional<std::string> Device::*>
      member;
};

const std::vector<DeviceField<CudaDevice>>& cuda_device_fields();
const std::vector<DeviceField<NvmlDevice>>& nvml_device_fields();

// The field's value as text ("" when unknown), and the field set from text (false: not a value of
// its type; the member is left unknown).
template <class Device>
std::optional<std::string> field_text(const Device& d, const DeviceField<Device>& f);
template <class Device>
bool set_field(Device& d, const DeviceField<Device>& f, const std::string& text);

}  // namespace dlready
