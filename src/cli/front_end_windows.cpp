// The Windows build's side of the front end (cli/front_end.hpp): the doctor, snapshot, diff,
// export, setup's plan and capture; the table's other commands say where they run.
#include <fcntl.h>
#include <io.h>
#include <windows.h>

#include <memory>
#include <string>

#include "cli/capture_command.hpp"
#include "cli/command_table.hpp"
#include "cli/doctor_command.hpp"
#include "cli/explain_command.hpp"
#include "cli/front_end.hpp"
#include "cli/setup_command.hpp"
#include "cli/snapshot_command.hpp"
#include "probe/windows/windows_probes.hpp"

namespace dlready {

const PlatformFrontEnd& this_platform() {
  static const PlatformFrontEnd kWindowsFrontEnd{
      kWindows, "dlready — make a GPU deep-learning machine ready and prove it (Windows: the doctor)",
      "nvcuda.dll/nvml.dll", "Replace the user name, profile folder, computer name and secret-looking values with placeholders",
      false};
  return kWindowsFrontEnd;
}

std::optional<int> start_process(int argc, char** argv) {
  // The reports are UTF-8 with "\n" line ends on every platform (the JSON and Markdown are the same
  // bytes as on Linux); the console shows UTF-8 (the marks ✓ ✗).
  ::_setmode(::_fileno(stdout), _O_BINARY);
  ::SetConsoleOutputCP(CP_UTF8);
  // The driver probes' children: this program again, before anything else runs.
  if (argc == 4 && std::string(argv[1]) == "--driver-child") return run_windows_driver_child(argv[2], argv[3]);
  return std::nullopt;
}

std::vector<CommandGroup> platform_commands() {
  return {doctor_command_group(), explain_command_group(), snapshot_command_group(),
          single_command<SetupArgs>("setup", add_setup_command, [](const SetupArgs& a) { return run_setup(a, Installer{}); }),
          single_command<CaptureArgs>("capture", add_capture_command, run_capture)};
}

void complete_live_options(GatherOptions&, bool) {}

}  // namespace dlready
