#include "cli/cuda_preload.hpp"

#include <dlfcn.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "os/root_fs.hpp"
#include "core/text.hpp"
#include "binfmt/elf_reader.hpp"

namespace dlready {
namespace {

// PyTorch's own preload order (torch/__init__.py, _preload_cuda_deps: cuBLASLt before cuBLAS, so
// cuBLAS cannot pick up another cuBLASLt), with cuDNN's sub-libraries after its shim, graph first:
// cuDNN opens them by name at run time, and by then they must already be loaded from the wheel.
// `global`: the libraries libtorch_cuda (and libtorch_nvshmem) link, which a program linked against
// LibTorch has in its global scope too; the rest — what cuDNN and PyTorch open at run time — stay
// local, as their own dlopen would load them.
// `for_cuda_work`: opened by name only once CUDA work runs (cuDNN's sub-libraries by cuDNN, NVRTC
// by PyTorch's JIT), never while LibTorch loads — a run without CUDA need not load them.
struct Preloaded {
  const char* stem;
  bool global, for_cuda_work;
};
constexpr Preloaded kLoadOrder[] = {
    {"libcublasLt", true, false}, {"libcublas", true, false}, {"libcudart", true, false}, {"libnvJitLink", true, false},
    {"libnvrtc", false, true}, {"libnvrtc-builtins", false, true}, {"libcudnn", true, false},
    {"libcudnn_graph", false, true}, {"libcudnn_ops", false, true}, {"libcudnn_heuristic", false, true},
    {"libcudnn_cnn", false, true}, {"libcudnn_adv", false, true}, {"libcudnn_engines_precompiled", false, true},
    {"libcudnn_engines_runtime_compiled", false, true}, {"libcupti", false, false}, {"libcusparse", true, false},
    {"libcufft", true, false}, {"libcurand", true, false}, {"libcusolver", false, false}, {"libcufile", true, false},
    {"libnccl", true, false}, {"libcusparseLt", true, false}, {"libnvshmem_host", true, false}};

// "libcudnn.so.9" for stem "libcudnn": the stem, ".so.", then only digits and dots.
bool is_versioned_file_of(const std::string& name, const std::string& stem) {
  std::string prefix = stem + ".so.";
  if (!starts_with(name, prefix) || name.size() == prefix.size()) return false;
  for (size_t i = prefix.size(); i < name.size(); ++i)
    if (!(std::isdigit(static_cast<unsigned char>(name[i])) || name[i] == '.')) return false;
  return true;
}

// The run path's folders named .../nvidia/<component>/lib that exist.
std::vector<std::string> wheel_dirs_of(const std::vector<std::string>& run_path) {
  RootFs fs("/");
  std::vector<std::string> dirs;
  for (const auto& dir : run_path)
    if (dir.rfind("/nvidia/") != std::string::npos && ends_with(dir, "/lib") && fs.is_dir(dir)) dirs.push_back(dir);
  return dirs;
}

// The shortest versioned file of `stem` in the first folder that has one (the soname's file).
std::optional<std::string> find_library(const std::vector<std::string>& dirs, const std::string& stem) {
  RootFs fs("/");
  for (const auto& dir : dirs) {
    std::optional<std::string> best;
    for (const auto& name : fs.list(dir))
      if (is_versioned_file_of(name, stem) && (!best || name.size() < best->size())) best = name;
    if (best) return path_join(dir, *best);
  }
  return std::nullopt;
}

}  // namespace

CudaPreload plan_cuda_preload(const std::vector<std::string>& run_path) {
  CudaPreload plan;
  plan.wheel_dirs = wheel_dirs_of(run_path);
  if (plan.wheel_dirs.empty()) return plan;
  RootFs fs("/");
  std::vector<std::string> files;
  std::vector<bool> global, for_cuda_work;
  std::map<std::string, size_t> by_soname;
  std::vector<std::vector<std::string>> needed;
  for (const auto& [stem, in_global_scope, opened_for_cuda_work] : kLoadOrder) {
    auto file = find_library(plan.wheel_dirs, stem);
    if (!file) continue;
    global.push_back(in_global_scope);
    for_cuda_work.push_back(opened_for_cuda_work);
    auto elf = read_elf(fs, *file);
    by_soname[elf.info && elf.info->soname ? *elf.info->soname : path_basename(*file)] = files.size();
    needed.push_back(elf.info ? elf.info->needed : std::vector<std::string>{});
    files.push_back(*file);
  }
  // Each library after those of the set it needs, else its DT_NEEDED would go by name.
  std::set<size_t> placed, visiting;
  std::function<void(size_t)> place = [&](size_t i) {
    if (placed.count(i) || !visiting.insert(i).second) return;
    for (const auto& n : needed[i])
      if (auto it = by_soname.find(n); it != by_soname.end()) place(it->second);
    placed.insert(i);
    plan.libraries.push_back({files[i], global[i], for_cuda_work[i], ""});
  };
  for (size_t i = 0; i < files.size(); ++i) place(i);
  return plan;
}

void preload_cuda_libraries(CudaPreload& plan) {
  const char* trace = std::getenv("DLREADY_TRACE_LOADING");
  bool tracing = trace && *trace && std::string(trace) != "0";
  for (auto& lib : plan.libraries) {
    if (!::dlopen(lib.path.c_str(), RTLD_NOW | (lib.global ? RTLD_GLOBAL : RTLD_LOCAL))) {
      const char* err = ::dlerror();
      lib.error = err ? err : "dlopen failed";
    }
    if (tracing)
      std::fprintf(stderr, "dlready: preload %s (%s)%s%s\n", lib.path.c_str(), lib.global ? "global" : "local",
                   lib.error.empty() ? "" : ": ", lib.error.c_str());
  }
}

}  // namespace dlready
