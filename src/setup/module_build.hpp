// The LibTorch module of a wheel-installed dlready, built on the user's machine against the user's
// own torch. A wheel cannot carry the module: its C++ must be torch's own (the same libstdc++, the
// same C++ ABI, the same LibTorch headers), so it is compiled the way PyTorch's C++ extensions are —
// by the user's C++ compiler against the headers and libraries in the torch wheel — from the sources
// the dlready wheel installs in <prefix>/share/dlready/module-src (cmake/module_only.cmake). One build
// per torch build (its version, CUDA variant, C++ ABI and place), kept under the cache folder and
// checked against that torch each time it is used.
#pragma once
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/status.hpp"

namespace dlready {

// The torch a module is built against, as its files say (nothing is imported).
struct TorchBuild {
  std::string torch_dir;            // <site-packages>/torch
  std::string env_prefix;           // the Python environment it is installed in
  std::string version;              // torch/version.py __version__: 2.11.0+cu130
  std::string git_version;          // torch/version.py git_version ("" when it has none)
  std::optional<std::string> cuda;  // the CUDA it was built for; nullopt = a CPU build
  int cxx11_abi = 1;                // libc10.so speaks std::__cxx11 (1) or the old ABI (0)
  std::string fingerprint;          // libtorch_cpu.so's size and modification time
};

// The module's sources beside this executable: <exe>/../share/dlready/module-src, where pip, uv and
// pipx put the wheel's data files (every scheme: venv, --prefix, --target, --user, a tool
// environment); nullopt for a build tree or a `cmake --install` (their module is built already).
std::optional<std::string> module_kit_beside(const std::string& exe);

struct UserTorchSearch {
  std::optional<TorchBuild> torch;
  std::string why;  // no torch: where the doctor looked, in one line
};
// The torch the user's Python would import: the first environment the doctor lists (the parent
// interpreter, VIRTUAL_ENV, CONDA_PREFIX, then the usual places), never the tool's own environment.
UserTorchSearch find_user_torch(const std::map<std::string, std::string>& env, const std::optional<std::string>& own_prefix);

// A cached module: <root>/<key>/libdlready_train.so and the module.json that says what it was built for
// (and, built against a CUDA torch, libdlready_train_cpu.so beside it: the module a CPU run loads).
struct CachedModule {
  std::string key;  // torch-2.11.0+cu130-cxx11abi1-1a2b3c4d
  std::string dir, library, manifest;
};
// DLREADY_MODULE_CACHE, else <XDG_CACHE_HOME or ~/.cache>/dlready/modules.
std::string module_cache_root(const std::map<std::string, std::string>& env);
CachedModule cached_module(const std::string& cache_root, const TorchBuild& torch);
// ok when the cached module is there and was built by this dlready for these very torch files;
// else fails saying why not ("not built yet", "built for torch 2.10.0+cpu", "torch's libraries
// changed since").
[[nodiscard]] Status cached_module_problem(const CachedModule& m, const TorchBuild& torch,
                                           const std::string& dlready_version);

struct ModuleBuildRequest {
  std::string kit;         // module_kit_beside()
  TorchBuild torch;
  std::string cache_root;  // module_cache_root()
  std::string dlready_version;  // written into module.json: another dlready rebuilds
  std::map<std::string, std::string> env;
  int jobs = 0;            // 0 = one per processor
  bool force = false;      // build even when the cached module is good
  std::FILE* progress = stderr;  // where the steps and the compiler's lines go
};

struct [[nodiscard]] ModuleBuildResult {
  std::string library;        // the module, built or reused
  bool reused = false;        // it was there already (another process may have just built it)
  double seconds = 0;         // the build's wall time
  std::string error;          // one line: what is missing or failed ("" = built)
  std::vector<std::string> fix;  // the commands that fix it
  bool interrupted = false;   // Ctrl-C/SIGTERM stopped the build (its build folder is removed)
};

// Builds the module into the cache (a lock keeps two processes from building the same one), with
// the user's C++ compiler (CXX, else c++/g++ on PATH) and CMake >= 3.18 (PATH, else PyPI's cmake
// into <cache_root>/build-tools with the environment's own pip); the compiler's output shown on
// `progress` as it comes and kept in <dir>/build.log.
ModuleBuildResult build_module(const ModuleBuildRequest& request);

}  // namespace dlready
