#include "core/text.hpp"
#include "probe/windows/windows_probes.hpp"

namespace dlready {
namespace {

// "pci\ven_10de&dev_2684&subsys_..." -> 10de, 2684 (lowercase hex, as the Linux facts write them).
bool pci_ids(const std::string& matching_device_id, std::string& vendor, std::string& device) {
  std::string id = to_lower(matching_device_id);
  auto v = id.find("ven_"), d = id.find("dev_");
  if (!starts_with(id, "pci\\") || v == std::string::npos || d == std::string::npos) return false;
  vendor = id.substr(v + 4, 4);
  device = id.substr(d + 4, 4);
  return vendor.size() == 4 && device.size() == 4;
}

}  // namespace

std::optional<std::string> nvidia_version_from_windows(const std::string& windows_version) {
  // 32.0.15.6094 -> digits of the last two parts, "156094" -> last five "56094" -> "560.94".
  auto parts = split(windows_version, '.');
  if (parts.size() != 4) return std::nullopt;
  std::string digits = parts[2] + parts[3];
  if (digits.size() < 5 || digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  digits = digits.substr(digits.size() - 5);
  return std::to_string(std::stoi(digits.substr(0, 3))) + "." + digits.substr(3);
}

PciFacts probe_display_adapters(const WindowsApi& api) {
  PciFacts pci;
  auto instances = api.registry_subkeys(RegistryHive::local_machine, kDisplayClassKey);
  pci.sysfs_readable = !instances.empty();  // the adapter list could be read
  for (const auto& instance : instances) {
    if (instance.size() != 4 || instance.find_first_not_of("0123456789") != std::string::npos) continue;  // "Properties"
    std::string key = std::string(kDisplayClassKey) + "\\" + instance;
    PciFunction fn;
    auto matching = api.registry_text(RegistryHive::local_machine, key, "MatchingDeviceId");
    if (!matching || !pci_ids(*matching, fn.vendor_id, fn.device_id)) continue;  // not a PCI adapter (Basic Display)
    fn.address = "display adapter " + instance;
    fn.class_code = "030000";
    fn.is_gpu = true;
    fn.name = api.registry_text(RegistryHive::local_machine, key, "DriverDesc");
    auto version = api.registry_text(RegistryHive::local_machine, key, "DriverVersion");
    if (version) fn.driver = fn.vendor_id == "10de" ? nvidia_version_from_windows(*version).value_or(*version) : *version;
    auto memory = api.registry_number(RegistryHive::local_machine, key, "HardwareInformation.qwMemorySize");
    if (!memory) memory = api.registry_number(RegistryHive::local_machine, key, "HardwareInformation.MemorySize");
    if (memory) fn.bar_sizes = {*memory};  // the adapter's dedicated memory, as Windows reports it
    (fn.vendor_id == "10de" ? pci.nvidia : pci.other_gpus).push_back(fn);
  }
  return pci;
}

}  // namespace dlready
