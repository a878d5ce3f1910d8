// Rules about dynamic-library resolution (the ld.so simulation of probe/ld_resolver).
#include "core/root_fs.hpp"
#include "core/text.hpp"
#include "diagnose/catalogue.hpp"
#include "diagnose/rules.hpp"

namespace dlready {
namespace {

bool is_cuda_family(const std::string& name) {
  for (const char* p : {"libcu", "libnv", "libnccl", "libtorch", "libc10", "libcaffe2"})
    if (starts_with(name, p)) return true;
  return false;
}

// The pip wheel that ships a CUDA library in PyTorch's layout (site-packages/nvidia/<dir>/lib).
std::string wheel_hint(const std::string& name) {
  if (starts_with(name, "libcudnn")) return "nvidia-cudnn-cu13 (or -cu12 for a CUDA 12 torch)";
  if (starts_with(name, "libnccl")) return "nvidia-nccl-cu13 (or -cu12)";
  if (starts_with(name, "libcusparseLt")) return "nvidia-cusparselt-cu13 (or -cu12)";
  return "the cuda-toolkit / nvidia-*-cu12 wheels torch pins (see torch-cuda-wheel-missing)";
}

}  // namespace

void rules_libraries(const Facts& f, std::vector<Finding>& out) {
  for (const auto& b : f.binaries) {
    if (!b.error.empty()) continue;  // --binary errors are reported by the CLI before diagnosis
    bool torch = ends_with(b.binary, "/libtorch_cuda.so");
    for (const auto& lib : b.libraries) {
      if (!lib.path) {
        auto x = make_finding(is_cuda_family(lib.name) ? "cuda-lib-unresolvable" : "lib-unresolvable");
        x.evidence.push_back(lib.name + ", needed by " + lib.needed_by + ", is not found");
        x.evidence.push_back("searched: " + (lib.searched.empty() ? std::string("nothing") : join(lib.searched, ", ")));
        if (torch)
          x.fix = {"reinstall PyTorch with its CUDA wheels: pip install --force-reinstall torch (brings " + wheel_hint(lib.name) + ")"};
        else
          x.fix = {"link the program with -Wl,-rpath,<dir of " + lib.name + "> (or install the package that ships it)",
                   "or for one shell: export LD_LIBRARY_PATH=<dir of " + lib.name + ">:$LD_LIBRARY_PATH"};
        out.push_back(x);
      } else if (lib.via == "LD_LIBRARY_PATH" && !lib.later_copies.empty() && is_cuda_family(lib.name)) {
        auto x = make_finding("cuda-lib-shadowed");
        x.evidence.push_back(lib.name + " for " + lib.needed_by + " comes from LD_LIBRARY_PATH: " + *lib.path +
                             (lib.version ? " [" + *lib.version + "]" : ""));
        for (const auto& c : lib.later_copies) x.evidence.push_back("shadowed copy: " + c);
        x.fix = {"unset LD_LIBRARY_PATH (or drop the directory " + path_dirname(*lib.path) + " from it) when running "
                 "PyTorch; it brings its own CUDA libraries"};
        out.push_back(x);
      }
    }
  }
}

}  // namespace dlready
