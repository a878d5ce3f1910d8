#include <algorithm>
#include "core/text.hpp"
#include "probe/linux/probes.hpp"

namespace dlready {
namespace {

std::optional<bool> cxx11_abi(const RootFs& fs, const std::string& dir) {
  for (const char* f : {"/share/cmake/Torch/TorchConfig.cmake", "/share/cmake/Caffe2/Caffe2Targets.cmake"}) {
    auto text = fs.read(dir + f, 4 << 20);
    if (!text) continue;
    if (contains(*text, "_GLIBCXX_USE_CXX11_ABI=1")) return true;
    if (contains(*text, "_GLIBCXX_USE_CXX11_ABI=0")) return false;
  }
  return std::nullopt;
}

}  // namespace

LibtorchFacts probe_libtorch(const RootFs& fs, const EnvFacts& env, const PythonFacts& py) {
  LibtorchFacts f;
  std::vector<std::string> cands;
  auto add_cmake_dir = [&](const std::string& d) {
    // Torch_DIR points at share/cmake/Torch; step up to the install root.
    if (ends_with(d, "/share/cmake/Torch") || ends_with(d, "/share/cmake/Torch/"))
      cands.push_back(path_dirname(path_dirname(path_dirname(path_normalize(d)))));
    else
      cands.push_back(d);
  };
  for (const char* v : {"Torch_DIR", "TORCH_DIR", "LIBTORCH"})
    if (auto d = env.get(v)) add_cmake_dir(*d);
  if (auto p = env.get("CMAKE_PREFIX_PATH"))
    for (const auto& d : split(*p, ':')) add_cmake_dir(d);
  std::string home = env.get("HOME").value_or("/root");
  for (const auto& d : {std::string("/opt/libtorch"), std::string("/usr/local/libtorch"), home + "/libtorch"})
    cands.push_back(d);
  for (const auto& e : py.envs)
    for (const auto& t : e.torch) cands.push_back(t.site_packages + "/torch");
  std::vector<std::string> seen;
  for (const auto& d : cands) {
    if (!fs.exists(d + "/share/cmake/Torch/TorchConfig.cmake")) continue;
    auto real = fs.resolve(d).value_or(d);
    if (std::find(seen.begin(), seen.end(), real) != seen.end()) continue;
    seen.push_back(real);
    LibtorchInstall li;
    li.path = d;
    li.build_version = fs.read_line(d + "/build-version");
    if (!li.build_version)
      if (auto vp = fs.read(d + "/version.py", 64 * 1024)) li.build_version = find_assignment(*vp, "__version__");
    li.cxx11_abi = cxx11_abi(fs, d);
    f.installs.push_back(li);
  }
  return f;
}

}  // namespace dlready
