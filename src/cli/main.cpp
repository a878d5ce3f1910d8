// dlready: make a GPU deep-learning machine ready and prove it. One front end for every platform:
// the command table says where each command runs, the platform's file wires the ones it runs.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "cli/command_table.hpp"
#include "cli/front_end.hpp"
#include "cli/usage_hints.hpp"
#include "core/exit_code.hpp"

namespace dlready {
namespace {

// " [Linux only]": where a command this build lacks runs, for its line in --help.
std::string where_it_runs(unsigned platforms) {
  std::string names;
  for (auto [bit, name] : {std::pair{kLinux, "Linux"}, {kWindows, "Windows"}, {kMacos, "macOS"}})
    if (platforms & bit) names += (names.empty() ? "" : ", ") + std::string(name);
  return " [" + names + (platforms & (platforms - 1) ? "]" : " only]");
}

// The command table's subcommands, in its order; those this platform lacks take any arguments, to
// say where they run instead of a parse error.
void add_table_commands(CLI::App& app, const PlatformFrontEnd& here) {
  for (const auto& c : command_table()) {
    bool runs_here = c.platforms & here.platform;
    auto* sub = app.add_subcommand(std::string(c.name), std::string(c.summary) + (runs_here ? "" : where_it_runs(c.platforms)));
    if (!runs_here) sub->allow_extras();
  }
}

int run_parsed(const CLI::App& app, const std::vector<CommandGroup>& groups, const PlatformFrontEnd& here) {
  for (const auto& g : groups)
    if (auto rc = g.run(app)) return *rc;
  for (const auto& c : command_table())
    if (app.got_subcommand(std::string(c.name)) && !(c.platforms & here.platform)) {
      std::fprintf(stderr, "dlready %s: %s; here: dlready doctor\n", std::string(c.name).c_str(),
                   std::string(c.elsewhere).c_str());
      return to_int(ExitCode::cannot_load);
    }
  return to_int(ExitCode::usage);
}

}  // namespace
}  // namespace dlready

int main(int argc, char** argv) {
  using namespace dlready;
  if (auto rc = start_process(argc, argv)) return *rc;
  const auto& here = this_platform();
  CLI::App app{std::string(here.title)};
  app.require_subcommand(1);
  app.set_version_flag("--version", DLREADY_VERSION);
  // Every option's help shows its default (subcommands inherit this).
  app.option_defaults()->always_capture_default();
  add_table_commands(app, here);
  auto groups = platform_commands();
  for (const auto& g : groups) g.add(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // A mistyped command or option gets one line that names the likely intent.
    if (auto hint = usage_hint(app, argc, argv, e.what()); !hint.empty() && e.get_exit_code() != 0) {
      std::fprintf(stderr, "%s\n", hint.c_str());
      return to_int(ExitCode::usage);
    }
    int rc = app.exit(e);
    // Help and --version are successes; every real parse error is ExitCode::usage (2).
    return rc == 0 ? 0 : to_int(ExitCode::usage);
  }
  return run_parsed(app, groups, here);
}
