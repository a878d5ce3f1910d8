// The macOS build's side of the front end (cli/front_end.hpp): the doctor, snapshot, diff and
// export; the table's other commands say where they run. Cross-built with zig; not run on a Mac here.
#include "cli/command_table.hpp"
#include "cli/doctor_command.hpp"
#include "cli/front_end.hpp"
#include "cli/snapshot_command.hpp"

namespace dlready {

const PlatformFrontEnd& this_platform() {
  static const PlatformFrontEnd kMacosFrontEnd{
      kMacos, "dlready — make a GPU deep-learning machine ready and prove it (macOS: the doctor)",
      "the Metal probe (not in this build yet)",
      "Replace user names, home directories, host names, addresses and secret-looking values with placeholders",
      false};
  return kMacosFrontEnd;
}

std::optional<int> start_process(int, char**) { return std::nullopt; }

std::vector<CommandGroup> platform_commands() { return {doctor_command_group(), snapshot_command_group()}; }

void complete_live_options(GatherOptions&, bool) {}

}  // namespace dlready
