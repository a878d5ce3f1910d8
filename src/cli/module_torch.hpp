// The torch a source-built LibTorch module loads. Its run path names the torch it was built
// against by absolute path (the build machine's venv: cmake/torch_layers.cmake); when that folder
// is gone (the venv removed, the build copied to another account) but the user's environment holds
// the very same torch build, the module loads from there, as a wheel-installed dlready's module
// does; otherwise the binary names the exact torch the module needs and where it looked, instead
// of the loader's "libtorch.so: cannot open shared object file".
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/status.hpp"

namespace dlready {

struct ModuleTorch {
  std::vector<std::string> run_path;         // the module's run path folders, moved to the torch used
  std::vector<std::string> torch_libraries;  // preloaded by absolute path (empty: the run path's own torch)
  std::optional<std::string> moved_from;     // the site-packages the module was built against, when gone
  std::optional<std::string> moved_to;       // then: the torch/lib of the same build it loads instead
};

// The built-for text of a module's .dlready_torch section ("2.11.0+cu130 <git_version>"); nullopt
// when it has none (a module from an older build) or the file is not an ELF.
std::optional<std::string> module_built_for_torch(const std::string& module_path);

// Where the module at `module_path` finds its torch; an error (one line: the torch it needs, and
// the one the user's environment holds or where no torch was found) when it cannot.
[[nodiscard]] Status locate_module_torch(const std::string& module_path, ModuleTorch& out);

}  // namespace dlready
