// The macOS build's side of the front end (cli/front_end.hpp): the doctor, snapshot, diff,
// export, setup's plan and capture; the table's other commands say where they run. Cross-built with zig; not run on a Mac here.
#include "cli/capture_command.hpp"
#include "cli/command_table.hpp"
#include "cli/doctor_command.hpp"
#include "cli/explain_command.hpp"
#include "cli/front_end.hpp"
#include "cli/setup_command.hpp"
#include "cli/snapshot_command.hpp"
#include "probe/macos/macos_probes.hpp"

namespace dlready {

const PlatformFrontEnd& this_platform() {
  static const PlatformFrontEnd kMacosFrontEnd{
      kMacos, "dlready — make a GPU deep-learning machine ready and prove it (macOS: the doctor)",
      "Metal (the Metal probe's child process)",
      "Replace user names, home directories, host names, addresses and secret-looking values with placeholders",
      false};
  return kMacosFrontEnd;
}

// The Metal probe's child (probe/macos/metal_probe.cpp) is this program started with --metal-child.
std::optional<int> start_process(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--metal-child") return run_metal_child();
  return std::nullopt;
}

std::vector<CommandGroup> platform_commands() {
  return {doctor_command_group(), explain_command_group(), snapshot_command_group(),
          single_command<SetupArgs>("setup", add_setup_command, [](const SetupArgs& a) { return run_setup(a, Installer{}); }),
          single_command<CaptureArgs>("capture", add_capture_command, run_capture)};
}

void complete_live_options(GatherOptions&, bool) {}

}  // namespace dlready
