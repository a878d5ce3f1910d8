// `dlready capture OUT.tar.gz`: what the doctor read on this machine, as a folder (or its tarball)
// that `dlready doctor --root` replays offline — for a bug report. Written once for every platform;
// each platform's twin writes it (cli/capture_output.hpp: the capture tree on Linux and macOS,
// Windows' recorded answers in a folder on Windows).
#pragma once
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "core/exit_code.hpp"

namespace dlready {

struct CaptureArgs {
  std::string out;
  std::string root = "/";
  bool no_redact = false, no_driver_probe = false;
  bool load_root_drivers = false;
  int timeout_ms = 10000;
  std::vector<std::string> binaries;
};

void add_capture_command(CLI::App& app, CaptureArgs& args);
ExitCode run_capture(const CaptureArgs& args);

}  // namespace dlready
