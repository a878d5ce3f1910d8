// Binaries' dependency closures as ld.so would load them, and the GPU code in their fat binaries.
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

// One library in a binary's dependency closure, as the dynamic loader would resolve it.
struct ResolvedLibrary {
  std::string name;       // as written in DT_NEEDED (or the dlopen name)
  std::string needed_by;  // path of the object that needs it
  std::optional<std::string> path;  // the file ld.so opens (nullopt: not found)
  std::string via;        // RPATH, LD_LIBRARY_PATH, RUNPATH, ld.so.cache, default directory, already loaded
  std::optional<std::string> version;     // from the real file name (libcudnn_graph.so.9.19.0 -> 9.19.0)
  std::vector<std::string> searched;      // directories tried in order ("dir (RUNPATH)")
  std::vector<std::string> later_copies;  // other files of that name later in the order: "path (via) [version]"
};

// GPU code found in a library's CUDA fat binaries (SASS cubins and PTX), by architecture number.
struct GpuCode {
  std::string library;
  std::vector<int> sass, ptx;  // 75 = sm_75 / compute_75
  bool compressed = false;
  std::string error;  // a malformed header stopped the scan (what was read before is kept)
  std::optional<std::string> torch_version;  // the library sits in a PyTorch's torch/lib: its torch/version.py
};

// A symbol version a library needs and the loaded provider does not define: ld.so stops with
// "<library>: version `<version>' not found (required by <required_by>)". With `symbol`, the
// provider defines the version but not that symbol of it: "<required_by>: undefined symbol:
// <symbol>, version <version>" (an older copy of the library under the same name).
struct MissingVersion {
  std::string library, version, required_by;
  std::string symbol;  // "" = the version itself is missing
};

struct Resolution {
  std::string binary;
  std::string error;  // the binary itself could not be read
  bool requested = false;  // named by --binary (its error is a usage error); else found in an environment
  std::vector<ResolvedLibrary> libraries;  // load order, each name once
  std::vector<MissingVersion> missing_versions;
  // Links LibTorch's CPU library while a libtorch_cuda.so sits next to it but is not in the
  // closure: the linker's --as-needed dropped it (the path of that libtorch_cuda.so).
  std::optional<std::string> unlinked_torch_cuda;
};

const FactTable<Resolution>& resolution_fields();
const FactTable<ResolvedLibrary>& resolved_library_fields();

}  // namespace dlready
