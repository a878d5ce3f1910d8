#include "core/text.hpp"
#include "probe/windows/registry.hpp"
#include "probe/gather.hpp"
#include "platform/platform_record.hpp"
#include "probe/windows/windows_probes.hpp"

namespace dlready {
namespace {

// The version Windows really runs (GetVersionEx answers what the program's manifest asked for).
std::optional<OSVERSIONINFOW> real_version() {
  using RtlGetVersion = LONG(WINAPI*)(OSVERSIONINFOW*);
  HMODULE ntdll = ::GetModuleHandleW(L"ntdll.dll");
  auto get = ntdll ? reinterpret_cast<RtlGetVersion>(reinterpret_cast<void*>(::GetProcAddress(ntdll, "RtlGetVersion")))
                   : nullptr;
  OSVERSIONINFOW v{};
  v.dwOSVersionInfoSize = sizeof v;
  if (!get || get(&v) != 0) return std::nullopt;
  return v;
}

}  // namespace

OsFacts probe_windows_os() {
  OsFacts os;
  os.id = std::string(platform_record(Platform::windows).name);  // what the record finds the platform by
  auto product = registry_text(HKEY_LOCAL_MACHINE, kWindowsVersionKey, "ProductName");
  auto release = registry_text(HKEY_LOCAL_MACHINE, kWindowsVersionKey, "DisplayVersion");
  if (!release) release = registry_text(HKEY_LOCAL_MACHINE, kWindowsVersionKey, "ReleaseId");  // before 20H2
  auto revision = registry_number(HKEY_LOCAL_MACHINE, kWindowsVersionKey, "UBR");
  auto version = real_version();
  if (product) {
    std::string name = *product;
    // Windows 11 kept "Windows 10" in ProductName: the build number tells them apart.
    if (version && version->dwBuildNumber >= 22000 && starts_with(name, "Windows 10")) name.replace(8, 2, "11");
    os.pretty_name = name + (release ? " " + *release : "");
  }
  if (version)
    os.kernel = std::to_string(version->dwMajorVersion) + "." + std::to_string(version->dwMinorVersion) + "." +
                std::to_string(version->dwBuildNumber) + (revision ? "." + std::to_string(*revision) : "");
  SYSTEM_INFO si{};
  ::GetNativeSystemInfo(&si);
  switch (si.wProcessorArchitecture) {
    case PROCESSOR_ARCHITECTURE_AMD64: os.arch = "x86_64"; break;
    case PROCESSOR_ARCHITECTURE_ARM64: os.arch = "aarch64"; break;
    case PROCESSOR_ARCHITECTURE_INTEL: os.arch = "x86"; break;
    default: break;
  }
  os.cpu_count = static_cast<int>(si.dwNumberOfProcessors);
  os.cpu_model = registry_text(HKEY_LOCAL_MACHINE, "HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0",
                               "ProcessorNameString");
  if (os.cpu_model) os.cpu_model = trim(*os.cpu_model);
  MEMORYSTATUSEX memory{};
  memory.dwLength = sizeof memory;
  if (::GlobalMemoryStatusEx(&memory)) os.memory_bytes = memory.ullTotalPhys;
  return os;
}

std::map<std::string, std::string> process_environment() {
  std::map<std::string, std::string> env;
  wchar_t* block = ::GetEnvironmentStringsW();
  if (!block) return env;
  for (const wchar_t* p = block; *p; p += wcslen(p) + 1) {
    std::string entry = utf8_from_wide(p);
    auto eq = entry.find('=', 1);  // "=C:=C:\..." entries start with '='
    if (eq != std::string::npos && entry[0] != '=') env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  ::FreeEnvironmentStringsW(block);
  return env;
}

}  // namespace dlready
