#include "core/text.hpp"
#include "probe/windows/windows_probes.hpp"

namespace dlready {

LibraryLocation probe_windows_library(const WindowsApi& api, const std::string& name, const std::map<std::string, std::string>& env) {
  LibraryLocation l;
  l.soname = name;
  std::vector<std::pair<std::string, std::string>> places = {{api.system_directory(), "System32"}};
  if (name == "nvml.dll") {
    auto program_files = env.count("ProgramW6432") ? env.at("ProgramW6432") : std::string("C:\\Program Files");
    places.push_back({program_files + "\\NVIDIA Corporation\\NVSMI", "NVSMI"});
  }
  for (const auto& [dir, via] : places) {
    l.searched.push_back(dir);
    std::string path = dir + "\\" + name;
    if (!api.is_file(path)) continue;
    l.path = l.real_path = path;
    l.found_via = via;
    if (auto v = api.file_version(path)) l.version = nvidia_version_from_windows(*v).value_or(*v);
    break;
  }
  return l;
}

}  // namespace dlready
