#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/json_text.hpp"
#include "core/text.hpp"
#include "probe/linux/probes.hpp"

namespace dlready {
namespace {

std::optional<std::string> toolkit_version(const RootFs& fs, const std::string& dir) {
  if (auto text = fs.read(dir + "/version.json", 256 * 1024)) {
    auto j = parse_json_bounded(*text);
    if (!j.is_discarded() && j.contains("cuda") && j["cuda"].is_object() && j["cuda"].contains("version") &&
        j["cuda"]["version"].is_string())
      return j["cuda"]["version"].get<std::string>();
  }
  if (auto line = fs.read_line(dir + "/version.txt")) {  // "CUDA Version 10.2.89"
    auto pos = line->rfind(' ');
    if (pos != std::string::npos) return line->substr(pos + 1);
  }
  // Toolkits assembled from NVIDIA's pip wheels carry dist-info instead of version.json.
  for (const auto& name : fs.list(dir + "/dist-info")) {
    const std::string prefix = "nvidia_cuda_nvcc-";
    if (starts_with(name, prefix) && ends_with(name, ".dist-info"))
      return name.substr(prefix.size(), name.size() - prefix.size() - 10);
  }
  if (auto h = fs.read(dir + "/include/cuda.h", 4 << 20)) {  // "#define CUDA_VERSION 13000"
    auto pos = h->find("#define CUDA_VERSION ");
    if (pos != std::string::npos) {
      auto v = parse_int(h->substr(pos + 21, h->find('\n', pos) - pos - 21));
      if (v) return std::to_string(*v / 1000) + "." + std::to_string((*v % 1000) / 10);
    }
  }
  return std::nullopt;
}

}  // namespace

CudaLibFacts probe_cuda_libs(const RootFs& fs, const LibraryLocator& loc, const EnvFacts& env) {
  CudaLibFacts f;
  std::vector<std::string> dirs;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (auto v = env.get(var)) dirs.push_back(*v);
  dirs.push_back("/usr/local/cuda");
  for (const auto& name : fs.list("/usr/local"))
    if (starts_with(name, "cuda-")) dirs.push_back("/usr/local/" + name);
  dirs.push_back("/opt/cuda");
  std::vector<std::string> seen;
  for (const auto& d : dirs) {
    auto real = fs.resolve(d);
    if (!real || !fs.is_dir(*real)) continue;
    if (std::find(seen.begin(), seen.end(), *real) != seen.end()) continue;
    seen.push_back(*real);
    CudaToolkit tk;
    tk.path = d == *real ? d : d + " -> " + *real;
    tk.version = toolkit_version(fs, *real);
    tk.has_nvcc = fs.exists(*real + "/bin/nvcc");
    if (tk.version || tk.has_nvcc) f.toolkits.push_back(tk);
  }
  // The first SONAME the loader resolves for each family (newest major first).
  const std::vector<std::vector<std::string>> families = {
      {"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"},
      {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11"},
      {"libcudnn.so.9", "libcudnn.so.8"},
      {"libnccl.so.2"}};
  for (const auto& family : families) {
    for (const auto& soname : family) {
      auto l = loc.locate(soname);
      if (l.found()) {
        f.libraries.push_back(l);
        break;
      }
    }
  }
  return f;
}

}  // namespace dlready
