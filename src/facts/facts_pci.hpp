// The PCI bus: NVIDIA functions and other display adapters (probe/linux/pci_probe.cpp).
// Plain data (std::nullopt = unknown); the tables say how each field is written (facts/fact_table.hpp).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "facts/fact_table.hpp"

namespace dlready {

struct PciFunction {
  std::string address;  // 0000:01:00.0
  std::string vendor_id, device_id, class_code;  // hex without 0x: 10de, 2684, 030000
  std::optional<std::string> name;               // from pci.ids
  std::optional<std::string> driver;             // bound kernel driver, nullopt = none
  std::optional<std::string> link_speed, max_link_speed;
  std::optional<int> link_width, max_link_width;
  std::vector<uint64_t> bar_sizes;  // BAR0..BAR5 sizes in bytes (0 = unassigned/absent)
  bool is_gpu = false;              // class 0x0300 / 0x0302
};

struct PciFacts {
  bool sysfs_readable = false;
  bool sysfs_denied = false;  // /sys/bus/pci/devices is there but this user may not list it
  std::optional<std::string> pci_ids_path;
  std::vector<PciFunction> nvidia;      // every vendor 0x10de function (GPUs, audio, NVSwitch)
  std::vector<PciFunction> other_gpus;  // display-class functions of other vendors (hybrid laptops)
};

// One PCI function (facts.pci's entries; the report adds "nvidia": which list it is in).
const FactTable<PciFunction>& pci_function_fields();

}  // namespace dlready
