// The commands of dlready.exe beside the doctor (windows_main.cpp): snapshot, diff and export.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

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

}  // namespace dlready
