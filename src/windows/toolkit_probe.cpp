// CUDA toolkits on Windows: CUDA_PATH and every CUDA_PATH_Vxx_y the installers set, and each folder
// on PATH with an nvcc.exe (several toolkits on PATH: the first one builds). A toolkit is not what
// a PyTorch wheel runs on (the wheel carries its own CUDA runtime); it matters for building
// extensions, so the rules compare its major with the wheel's.
#include <nlohmann/json.hpp>

#include "core/text.hpp"
#include "windows/registry.hpp"
#include "windows/windows_probes.hpp"

namespace dlready {
namespace {

bool exists(const std::string& path) { return ::GetFileAttributesW(wide_from_utf8(path).c_str()) != INVALID_FILE_ATTRIBUTES; }

std::optional<std::string> read_small_file(const std::string& path) {
  HANDLE h = ::CreateFileW(wide_from_utf8(path).c_str(), GENERIC_READ, FILE_SHARE_READ, nullptr, OPEN_EXISTING,
                           FILE_ATTRIBUTE_NORMAL, nullptr);
  if (h == INVALID_HANDLE_VALUE) return std::nullopt;
  std::string bytes(64 * 1024, '\0');
  DWORD got = 0;
  bool ok = ::ReadFile(h, bytes.data(), static_cast<DWORD>(bytes.size()), &got, nullptr);
  ::CloseHandle(h);
  if (!ok) return std::nullopt;
  bytes.resize(got);
  return bytes;
}

// version.json's "cuda": {"version": "12.4.1"} (toolkits from 11.1 on).
std::optional<std::string> toolkit_version(const std::string& dir) {
  auto text = read_small_file(dir + "\\version.json");
  if (!text) return std::nullopt;
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object() || !j.contains("cuda") || !j["cuda"].is_object() || !j["cuda"].value("version", "").size())
    return std::nullopt;
  return j["cuda"]["version"].get<std::string>();
}

}  // namespace

std::vector<CudaToolkit> probe_windows_toolkits(const std::map<std::string, std::string>& env) {
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
    if (ends_with(to_lower(dir), "\\bin") && exists(dir + "\\nvcc.exe")) add(dir.substr(0, dir.size() - 4));
  std::vector<CudaToolkit> toolkits;
  for (const auto& dir : dirs) {
    if (!exists(dir)) continue;
    toolkits.push_back({dir, toolkit_version(dir), exists(dir + "\\bin\\nvcc.exe")});
  }
  return toolkits;
}

}  // namespace dlready
