#include "core/text.hpp"
#include "platform/platform_record.hpp"
#include "probe/windows/windows_probes.hpp"

namespace dlready {

OsFacts probe_windows_os(const WindowsApi& api) {
  OsFacts os;
  os.id = std::string(platform_record(Platform::windows).name);  // what the record finds the platform by
  const auto hklm = RegistryHive::local_machine;
  auto product = api.registry_text(hklm, kWindowsVersionKey, "ProductName");
  auto release = api.registry_text(hklm, kWindowsVersionKey, "DisplayVersion");
  if (!release) release = api.registry_text(hklm, kWindowsVersionKey, "ReleaseId");  // before 20H2
  auto revision = api.registry_number(hklm, kWindowsVersionKey, "UBR");
  WindowsSystemInfo system = api.system_info();
  if (product) {
    std::string name = *product;
    // Windows 11 kept "Windows 10" in ProductName: the build number tells them apart.
    if (system.build && *system.build >= 22000 && starts_with(name, "Windows 10")) name.replace(8, 2, "11");
    os.pretty_name = name + (release ? " " + *release : "");
  }
  if (system.major && system.minor && system.build)
    os.kernel = std::to_string(*system.major) + "." + std::to_string(*system.minor) + "." + std::to_string(*system.build) +
                (revision ? "." + std::to_string(*revision) : "");
  os.arch = system.arch;
  os.cpu_count = system.processors;
  os.cpu_model = api.registry_text(hklm, "HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0", "ProcessorNameString");
  if (os.cpu_model) os.cpu_model = trim(*os.cpu_model);
  os.memory_bytes = system.memory_bytes;
  return os;
}

}  // namespace dlready
