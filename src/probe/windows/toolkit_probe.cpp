// CUDA toolkits on Windows: CUDA_PATH and every CUDA_PATH_Vxx_y the installers set, and each folder
// on PATH with an nvcc.exe (several toolkits on PATH: the first one builds). A toolkit is not what
// a PyTorch wheel runs on (the wheel carries its own CUDA runtime); it matters for building
// extensions, so the rules compare its major with the wheel's.
#include "core/json_text.hpp"
#include "core/text.hpp"
#include "probe/windows/windows_probes.hpp"

namespace dlready {
namespace {

// version.json's "cuda": {"version": "12.4.1"} (toolkits from 11.1 on).
std::optional<std::string> toolkit_version(const WindowsApi& api, const std::string& dir) {
  auto text = api.read_file(dir + "\\version.json", 64 * 1024);
  if (!text) return std::nullopt;
  auto j = parse_json_bounded(*text);
  if (!j.is_object() || !j.contains("cuda") || !j["cuda"].is_object() || !j["cuda"].value("version", "").size())
    return std::nullopt;
  return j["cuda"]["version"].get<std::string>();
}

}  // namespace

std::vector<CudaToolkit> probe_windows_toolkits(const WindowsApi& api, const std::map<std::string, std::string>& env) {
  std::vector<std::string> dirs;
  auto add = [&](std::string dir) {
    while (!dir.empty() && (dir.back() == '\\' || dir.back() == '/')) dir.pop_back();
    for (const auto& seen : dirs)
      if (to_lower(seen) == to_lower(dir)) return;
    if (!dir.empty()) dirs.push_back(dir);
  };
  if (env.count("CUDA_PATH")) add(env.at("CUDA_PATH"));
  for (const auto& [name, value] : env)
    if (starts_with(name, "CUDA_PATH_V")) add(value);
  std::string path = env.count("PATH") ? env.at("PATH") : env.count("Path") ? env.at("Path") : "";
  for (const auto& dir : split(path, ';'))
    if (ends_with(to_lower(dir), "\\bin") && api.path_exists(dir + "\\nvcc.exe")) add(dir.substr(0, dir.size() - 4));
  std::vector<CudaToolkit> toolkits;
  for (const auto& dir : dirs) {
    if (!api.path_exists(dir)) continue;
    toolkits.push_back({dir, toolkit_version(api, dir), api.path_exists(dir + "\\bin\\nvcc.exe")});
  }
  return toolkits;
}

}  // namespace dlready
