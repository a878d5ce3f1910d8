// This Windows machine as the probes ask it (probe/windows/windows_api.hpp): the registry, its files,
// version resources, RtlGetVersion and the processors, DXGI, and the driver probes' children. The
// Windows build only; a capture records these answers for any build to replay.
#include <memory>

#include "core/text.hpp"
#include "probe/windows/live_dxgi.hpp"
#include "probe/windows/registry.hpp"
#include "probe/windows/windows_files.hpp"
#include "probe/windows/windows_probes.hpp"

namespace dlready {
namespace {

HKEY hive_key(RegistryHive hive) { return hive == RegistryHive::current_user ? HKEY_CURRENT_USER : HKEY_LOCAL_MACHINE; }

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

WindowsSystemInfo read_system_info() {
  WindowsSystemInfo s;
  if (auto v = real_version()) s.major = v->dwMajorVersion, s.minor = v->dwMinorVersion, s.build = v->dwBuildNumber;
  SYSTEM_INFO si{};
  ::GetNativeSystemInfo(&si);
  switch (si.wProcessorArchitecture) {
    case PROCESSOR_ARCHITECTURE_AMD64: s.arch = "x86_64"; break;
    case PROCESSOR_ARCHITECTURE_ARM64: s.arch = "aarch64"; break;
    case PROCESSOR_ARCHITECTURE_INTEL: s.arch = "x86"; break;
    default: break;
  }
  s.processors = static_cast<int>(si.dwNumberOfProcessors);
  MEMORYSTATUSEX memory{};
  memory.dwLength = sizeof memory;
  if (::GlobalMemoryStatusEx(&memory)) s.memory_bytes = memory.ullTotalPhys;
  return s;
}

// The file's version resource ("32.0.15.6094"), nullopt without one.
std::optional<std::string> read_file_version(const std::string& path) {
  std::wstring wide = wide_from_utf8(path);
  DWORD ignored = 0, size = ::GetFileVersionInfoSizeW(wide.c_str(), &ignored);
  if (size == 0) return std::nullopt;
  std::vector<BYTE> info(size);
  VS_FIXEDFILEINFO* fixed = nullptr;
  UINT len = 0;
  if (!::GetFileVersionInfoW(wide.c_str(), 0, size, info.data()) ||
      !::VerQueryValueW(info.data(), L"\\", reinterpret_cast<void**>(&fixed), &len) || !fixed)
    return std::nullopt;
  return std::to_string(HIWORD(fixed->dwFileVersionMS)) + "." + std::to_string(LOWORD(fixed->dwFileVersionMS)) + "." +
         std::to_string(HIWORD(fixed->dwFileVersionLS)) + "." + std::to_string(LOWORD(fixed->dwFileVersionLS));
}

class LiveWindows final : public WindowsApi {
 public:
  std::optional<std::string> registry_text(RegistryHive h, const std::string& key, const std::string& value) const override {
    return dlready::registry_text(hive_key(h), key, value);
  }
  std::optional<uint64_t> registry_number(RegistryHive h, const std::string& key, const std::string& value) const override {
    return dlready::registry_number(hive_key(h), key, value);
  }
  std::vector<std::string> registry_subkeys(RegistryHive h, const std::string& key) const override {
    return dlready::registry_subkeys(hive_key(h), key);
  }
  std::vector<std::pair<std::string, std::string>> registry_text_values(RegistryHive h, const std::string& key) const override {
    return dlready::registry_text_values(hive_key(h), key);
  }
  bool path_exists(const std::string& path) const override { return dlready::path_exists(path); }
  bool is_file(const std::string& path) const override { return dlready::is_file(path); }
  std::optional<std::string> read_file(const std::string& path, size_t limit) const override {
    return dlready::read_file(path, limit);
  }
  std::vector<std::string> list_dir(const std::string& dir) const override { return dlready::list_dir(dir); }
  ByteReader file_ranges(const std::string& path) const override { return dlready::file_ranges(path); }
  bool on_network(const std::string& path) const override { return dlready::on_network(path); }
  std::string system_directory() const override { return dlready::system_directory(); }
  std::string windows_directory() const override { return dlready::windows_directory(); }
  std::optional<std::string> file_version(const std::string& path) const override { return read_file_version(path); }
  WindowsSystemInfo system_info() const override { return read_system_info(); }
  DxgiAnswer dxgi() const override { return read_dxgi(); }
  std::optional<ChildResult> driver_child(const std::string& kind, const std::string& dll, int timeout_ms) const override {
    return windows_driver_child(kind, dll, timeout_ms);
  }
};

// This machine; for `dlready capture`, each answer also recorded.
GatherResult gather_windows_machine(const GatherOptions& options) {
  auto live = live_windows();
  if (!options.record) return gather_windows(*live, options);
  auto recording = recording_windows(*live, *options.record);
  return gather_windows(*recording, options);
}

}  // namespace

FactSource windows_fact_source() { return {Platform::windows, gather_windows_machine, nullptr}; }

std::unique_ptr<WindowsApi> live_windows() { return std::make_unique<LiveWindows>(); }

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
