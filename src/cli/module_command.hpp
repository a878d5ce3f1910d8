// `dlready module build` and `dlready module status`: the LibTorch module of a wheel-installed
// dlready, compiled against the user's own torch (setup/module_build.hpp). A source build's module
// is built with the binary; these commands then say where it is.
#pragma once
#include <CLI/CLI.hpp>

#include <optional>

#include "core/exit_code.hpp"

namespace dlready {

struct ModuleArgs {
  bool force = false;  // build even when the cached module is good
  int jobs = 0;        // 0 = one per processor, as memory allows
  bool json = false;   // status as JSON
};

void add_module_commands(CLI::App& app, ModuleArgs& a);
// The command parsed (module build, module status), or nullopt when neither was.
std::optional<ExitCode> run_module_command(const CLI::App& app, const ModuleArgs& a);

}  // namespace dlready
