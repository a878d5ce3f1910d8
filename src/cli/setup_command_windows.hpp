// `dlready setup` in the Windows build (the Linux build's is setup_command.hpp): the plan and the
// PowerShell commands, never an install.
#pragma once
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "core/exit_code.hpp"

namespace dlready {

struct WindowsSetupArgs {
  std::string env_dir = ".venv";
  std::string python, torch, driver;
  std::vector<std::string> with, gpus;
  bool dry_run = false, json = false, no_gpu = false;
};

void add_windows_setup_command(CLI::App& app, WindowsSetupArgs& a);
ExitCode run_windows_setup(const WindowsSetupArgs& a);

}  // namespace dlready
