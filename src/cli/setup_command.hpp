// `dlready setup`'s flags and output; what it plans, installs and proves is in src/setup/.
#pragma once
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "core/exit_code.hpp"
#include "setup/setup_plan.hpp"

namespace dlready {

using SetupArgs = SetupRequest;

void add_setup_command(CLI::App& app, SetupArgs& args);
ExitCode run_setup(const SetupArgs& args);

}  // namespace dlready
