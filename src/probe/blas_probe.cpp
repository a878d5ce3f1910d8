#include "core/text.hpp"
#include "probe/probes.hpp"

namespace dlready {

BlasFacts probe_blas(const LibraryLocator& loc) {
  BlasFacts f;
  f.library = loc.locate("libblas.so.3");
  if (!f.library.found()) return f;
  // Debian's alternatives put each implementation in its own directory:
  // .../blas/libblas.so.3 (reference netlib), .../openblas-pthread/, .../blis-openmp/, ...
  std::string p = to_lower(f.library.real_path.value_or(*f.library.path));
  if (contains(p, "openblas"))
    f.implementation = "openblas";
  else if (contains(p, "blis"))
    f.implementation = "blis";
  else if (contains(p, "mkl"))
    f.implementation = "mkl";
  else if (contains(p, "atlas"))
    f.implementation = "atlas";
  else if (contains(p, "/blas/") || contains(p, "netlib"))
    f.implementation = "reference";
  return f;
}

}  // namespace dlready
