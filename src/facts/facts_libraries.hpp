// Libraries as the loader finds them by name: libcuda, libnvidia-ml, the CUDA libraries and
// toolkits, the BLAS.
// Plain data (std::nullopt = unknown); the tables say how each field is written (facts/fact_table.hpp).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "facts/fact_table.hpp"

namespace dlready {

struct LibraryLocation {
  std::string soname;
  std::optional<std::string> path;       // what the loader would open (inside the root)
  std::optional<std::string> real_path;  // after symlinks
  std::optional<std::string> version;    // from the real file name (libcuda.so.580.65.06 -> ...)
  std::string found_via;                 // LD_LIBRARY_PATH, ld.so.cache, default dir
  std::vector<std::string> searched;     // directories looked in, in order
  bool stub = false, compat = false, wsl = false;
  bool found() const { return path.has_value(); }
};

struct CudaToolkit {
  std::string path;
  std::optional<std::string> version;  // version.json "cuda" or version.txt
  bool has_nvcc = false;
};

struct CudaLibFacts {
  std::vector<CudaToolkit> toolkits;
  std::vector<LibraryLocation> libraries;  // libcudart, libcublas, libcudnn, libnccl
};

// A program or library that does matrix math on the CPU, and the BLAS it really uses.
struct BlasConsumer {
  std::string name;     // "torch 2.11.0+cu130", "numpy", "LibTorch"
  std::string where;    // its site-packages or install directory
  std::string library;  // the file read: libtorch_cpu.so, numpy's _multiarray_umath*.so
  std::string blas;     // "libblas.so.3", "libopenblas.so.0", "bundled: numpy.libs/libscipy_openblas64_...so",
                        // "linked in" (no BLAS library on its loader path: MKL/OpenBLAS inside the file)
  bool system_blas = false;  // through libblas.so.3 / libcblas.so.3, i.e. whatever the alternatives pick
};

struct BlasFacts {
  LibraryLocation library;             // libblas.so.3
  std::optional<std::string> implementation;  // reference, openblas, blis, mkl, atlas
  std::vector<BlasConsumer> consumers;  // PyTorch, LibTorch and numpy installs found
};

const FactTable<LibraryLocation>& library_location_fields();
const FactTable<CudaToolkit>& cuda_toolkit_fields();
const FactTable<BlasFacts>& blas_fields();
const FactTable<BlasConsumer>& blas_consumer_fields();

}  // namespace dlready
