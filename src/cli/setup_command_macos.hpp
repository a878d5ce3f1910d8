// `dlready setup` in the macOS build (the Linux build's is setup_command.hpp, Windows'
// setup_command_windows.hpp): the plan for this Mac (or another, by flags) and the commands that
// install and prove it — never an install.
#pragma once
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "core/exit_code.hpp"

namespace dlready {

struct MacosSetupArgs {
  std::string env_dir = ".venv";
  std::string python, torch, macos, platform, index_url;
  std::vector<std::string> with;
  bool dry_run = false, json = false;
};

void add_macos_setup_command(CLI::App& app, MacosSetupArgs& a);
ExitCode run_macos_setup(const MacosSetupArgs& a);

}  // namespace dlready
