#include "core/text.hpp"
#include "probe/windows/registry.hpp"
#include "probe/windows/windows_files.hpp"
#include "probe/windows/windows_probes.hpp"

namespace dlready {
namespace {

// The file's version resource ("32.0.15.6094"), nullopt without one.
std::optional<std::string> file_version(const std::string& path) {
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

}  // namespace

LibraryLocation probe_windows_library(const std::string& name, const std::map<std::string, std::string>& env) {
  LibraryLocation l;
  l.soname = name;
  std::vector<std::pair<std::string, std::string>> places = {{system_directory(), "System32"}};
  if (name == "nvml.dll") {
    auto program_files = env.count("ProgramW6432") ? env.at("ProgramW6432") : std::string("C:\\Program Files");
    places.push_back({program_files + "\\NVIDIA Corporation\\NVSMI", "NVSMI"});
  }
  for (const auto& [dir, via] : places) {
    l.searched.push_back(dir);
    std::string path = dir + "\\" + name;
    if (!is_file(path)) continue;
    l.path = l.real_path = path;
    l.found_via = via;
    if (auto v = file_version(path)) l.version = nvidia_version_from_windows(*v).value_or(*v);
    break;
  }
  return l;
}

}  // namespace dlready
