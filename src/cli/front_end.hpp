// The seam between the one front end (cli/main.cpp, cli/command_table.cpp) and a platform: one
// declaration here, one definition per platform (cli/front_end_linux.cpp, cli/front_end_windows.cpp),
// the build choosing which. A third platform is one more file, not a second main.
#pragma once
#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "core/exit_code.hpp"
#include "probe/gather.hpp"

namespace dlready {

struct PlatformFrontEnd {
  unsigned platform = 0;              // PlatformBit (cli/command_table.hpp)
  std::string_view title;             // the program's one-line description in --help
  std::string_view driver_libraries;  // what --no-driver-probe leaves unloaded
  std::string_view redact_help;       // what --redact hides here
  // The platform's source of facts reads a root other than the live machine (--root, --user,
  // --load-root-drivers, --binary and the library-scan cache go with it).
  bool reads_roots = false;
};

// A platform's commands that share their arguments (snapshot, diff and export; keygen, rekey and
// audit): `add` fills in the options of subcommands main made from the table; `run` returns the
// exit status when one of them was given, nullopt otherwise. `commands` names the subcommands it
// fills, so that `dlready doctor` wires the doctor's options alone (every command's ~300 options
// were half a millisecond of each doctor run); none named: it is always wired.
struct CommandGroup {
  std::function<void(CLI::App&)> add;
  std::function<std::optional<int>(const CLI::App&)> run;
  std::vector<std::string_view> commands = {};
};

// One command with its own arguments: `add(app, args)` fills in its options, `run(args)` its work.
template <class Args, class Add, class Run>
CommandGroup single_command(const char* name, Add add, Run run) {
  auto args = std::make_shared<Args>();
  return {[args, add](CLI::App& app) { add(app, *args); },
          [args, run, name](const CLI::App& app) -> std::optional<int> {
            if (!app.got_subcommand(name)) return std::nullopt;
            return to_int(run(*args));
          },
          {name}};
}

[[nodiscard]] const PlatformFrontEnd& this_platform();
// Before the arguments are parsed (the console's encoding; Windows' driver probes run this
// executable again as their child): an exit status when the process has done its work.
[[nodiscard]] std::optional<int> start_process(int argc, char** argv);
[[nodiscard]] std::vector<CommandGroup> platform_commands();
// The options a command examining the live machine adds on this platform: what `dlready train`
// would load, and the library-scan cache (`use_cache`).
void complete_live_options(GatherOptions& options, bool use_cache);

}  // namespace dlready
