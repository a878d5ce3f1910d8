// The commands of dlready.exe beside the doctor (windows_main.cpp): snapshot, diff, export and
// setup --dry-run.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "core/exit_code.hpp"

namespace dlready {

struct WindowsSnapshotArgs {
  std::string out;  // snapshot --out
  bool no_driver_probe = false, redact = false;
  int timeout_ms = 10000;
  std::string before, after;  // diff
  bool diff_json = false;
  std::string snapshot, format = "requirements", export_out;  // export
};

void add_windows_snapshot_commands(CLI::App& app, WindowsSnapshotArgs& a);
// Runs whichever of snapshot, diff and export was given.
ExitCode run_windows_snapshot_command(CLI::App& app, const WindowsSnapshotArgs& a);
ExitCode run_windows_snapshot(const WindowsSnapshotArgs& a);

struct WindowsSetupArgs {
  std::string env_dir = ".venv";
  std::string python, torch, driver;
  std::vector<std::string> with, gpus;
  bool dry_run = false, json = false, no_gpu = false;
};

void add_windows_setup_command(CLI::App& app, WindowsSetupArgs& a);
ExitCode run_windows_setup(const WindowsSetupArgs& a);

}  // namespace dlready
