// `dlready launch`: options; the work is in launch/launcher.cpp.
#pragma once
#include <CLI/CLI.hpp>

#include "launch/launcher.hpp"

namespace dlready {

void add_launch_command(CLI::App& app, LaunchOptions& opt);

}  // namespace dlready
