// Deterministic CUDA library loading for the LibTorch module. The module and libtorch_cuda find
// their CUDA libraries by name, and a name goes through LD_LIBRARY_PATH, the caller's own run path
// and ld.so.cache — for a dlopen inside cuDNN or NVRTC the caller is that library, not the module,
// so the module's run path cannot govern it. A machine with a CUDA toolkit or a system cuDNN beside
// the PyTorch wheel (the first GPU machine lent: `dlready verify` died in cuDNN's convolution
// there) can then mix two versions in one process. PyTorch's own import avoids this by loading the
// wheel's libraries by absolute path first; so does dlready: a library already loaded under a
// soname is the one every later by-name lookup gets.
#pragma once
#include <string>
#include <vector>

namespace dlready {

struct PreloadedLibrary {
  std::string path;
  bool global = false;  // RTLD_GLOBAL: a library libtorch_cuda links (else RTLD_LOCAL)
  bool for_cuda_work = false;  // opened by name only once CUDA work runs: a run without CUDA skips it
  std::string error;    // empty: loaded
};

struct CudaPreload {
  std::vector<std::string> wheel_dirs;  // the nvidia/*/lib folders on the module's run path
  std::vector<PreloadedLibrary> libraries;  // in load order
};

// The wheel's CUDA library files the module would use, in the order they must be loaded (each
// after the libraries of the set it needs): from the module's run path folders (ModuleTorch's,
// cli/module_torch.hpp) named .../nvidia/<component>/lib. Empty for a CPU-only LibTorch.
CudaPreload plan_cuda_preload(const std::vector<std::string>& run_path);

// Loads each planned library by absolute path (the ones libtorch_cuda links into the global scope,
// as a program linked against LibTorch has them; the rest local), keeping going past one that
// fails; DLREADY_TRACE_LOADING=1 prints each on stderr.
void preload_cuda_libraries(CudaPreload& plan);

}  // namespace dlready
