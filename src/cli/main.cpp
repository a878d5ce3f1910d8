// dlready: make a GPU deep-learning machine ready and prove it. One front end for every platform:
// the command table says where each command runs, the platform's file wires the ones it runs.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command_table.hpp"
#include "cli/front_end.hpp"
#include "cli/help_format.hpp"
#include "cli/usage_hints.hpp"
#include "core/exit_code.hpp"
#include "core/status.hpp"
#include "core/text.hpp"
#include "compat/compat.hpp"
#include "os/terminal.hpp"
#include "platform/platform_record.hpp"

namespace dlready {
namespace {

// " [Linux only]": where a command this build lacks runs, for its line in --help.
std::string where_it_runs(unsigned platforms) {
  std::string names;
  for (const auto& p : platform_records())
    if (platforms & p.bit) names += (names.empty() ? "" : ", ") + std::string(p.title);
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

// `--version`: what it is — the name, the version, the build's target and compiler, and the date of
// the compatibility tables its advice comes from.
std::string version_line() {
  std::string compiler =
#if defined(__clang__)
      "clang " + std::to_string(__clang_major__) + "." + std::to_string(__clang_minor__);
#elif defined(__GNUC__)
      "GCC " + std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__);
#else
      "an unknown compiler";
#endif
  return std::string("dlready ") + DLREADY_VERSION + " (" + DLREADY_BUILD_TARGET + ", " + compiler +
         "; compatibility tables of " + kCompatTableDate + ")";
}

// `dlready help [COMMAND]` is `dlready [COMMAND] --help`.
std::vector<std::string> with_help_spelled_out(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  if (args.size() >= 2 && args[1] == "help") {
    args.erase(args.begin() + 1);
    args.push_back("--help");
  }
  return args;
}

// `dlready help junk`, `dlready help doctor train`: the words after help name a command (and a
// subcommand of it); anything else is a usage error that says what was meant.
[[nodiscard]] Status help_request_error(const CLI::App& app, const std::vector<std::string>& args) {
  if (args.size() < 2 || args[1] != "help") return {};
  const CLI::App* at = &app;
  std::string path = "dlready";
  for (size_t i = 2; i < args.size(); ++i) {
    std::vector<std::string> names;
    for (const auto* sub : at->get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
    if (names.empty())
      return Status::failure("dlready help: one command at a time; '" + printable(args[i], 80) + "' is not a subcommand of " + path +
             " (dlready help " + path.substr(8) + ")");
    if (std::find(names.begin(), names.end(), args[i]) == names.end()) {
      auto guess = closest_choice(args[i], names);
      return Status::failure("dlready help: " + path + " has no command '" + printable(args[i], 80) + "'" +
             (guess ? " (did you mean '" + *guess + "'?)" : "") + "; commands: " + join(names, ", "));
    }
    at = at->get_subcommand(args[i]);
    path += " " + args[i];
  }
  return {};
}

// CLI11's own error lines ("--json excludes --markdown", "The following argument was not expected:
// -j") in dlready's style: the command named first, the next step last.
std::string parse_error_line(const CLI::App& app, const std::vector<std::string>& args, const std::string& what) {
  std::string command;
  for (size_t i = 1; i < args.size() && command.empty(); ++i)
    for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; }))
      if (sub->get_name() == args[i]) command = args[i];
  std::string prefix = "dlready" + (command.empty() ? std::string() : " " + command);
  return prefix + ": " + printable(what, 1024) + "; see " + prefix + " --help";  // it quotes what was typed
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


// The groups `dlready <command> ...` needs: the one that fills <command> and those that name no
// command. nullopt when the first word is no command a group names (none, help, --version,
// completion, man, a typo): then every group is wired.
std::optional<std::vector<CommandGroup>> groups_for_command(const std::vector<CommandGroup>& all, int argc, char** argv) {
  if (argc < 2) return std::nullopt;
  const std::string_view word = argv[1];
  std::vector<CommandGroup> picked;
  bool named = false;
  for (const auto& g : all) {
    const bool fills = std::find(g.commands.begin(), g.commands.end(), word) != g.commands.end();
    named |= fills;
    if (fills || g.commands.empty()) picked.push_back(g);
  }
  if (!named) return std::nullopt;
  return picked;
}

// Parses and runs the command line with every command wired, or (`one_command`) only the command
// it names; nullopt when that narrow parse cannot settle it (help, an error: the full parse says
// what it always said, with every command's options to hint from).
std::optional<int> run_command_line(int argc, char** argv, bool one_command) {
  const auto& here = this_platform();
  auto groups = platform_commands();
  if (one_command) {
    auto picked = groups_for_command(groups, argc, argv);
    if (!picked) return std::nullopt;
    groups = std::move(*picked);
  }
  CLI::App app{std::string(here.title)};
  app.name("dlready");  // not argv[0], which CLI11 would print in the Usage line as it was typed
  app.require_subcommand(1);
  app.set_version_flag("--version", version_line());
  // Every option's help shows its default (subcommands inherit this).
  app.option_defaults()->always_capture_default();
  // Help wraps at the terminal's width (subcommands made after this inherit the formatter).
  app.formatter(std::make_shared<WrappingFormatter>(terminal_columns(1)));
  add_table_commands(app, here);
  for (const auto& g : groups) g.add(app);
  if (Status help = help_request_error(app, std::vector<std::string>(argv, argv + argc)); !help.ok()) {
    std::fprintf(stderr, "%s\n", help.error().c_str());
    return to_int(ExitCode::usage);
  }
  auto args = with_help_spelled_out(argc, argv);
  std::vector<const char*> argp;
  for (const auto& a : args) argp.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argp.size()), argp.data());
  } catch (const CLI::ParseError& e) {
    if (one_command) return std::nullopt;
    if (e.get_exit_code() == 0) return app.exit(e);  // --help and --version are successes
    // A mistyped command or option gets one line that names the likely intent.
    if (auto hint = usage_hint(app, static_cast<int>(argp.size()), argp.data(), e.what())) {
      std::fprintf(stderr, "%s\n", hint->c_str());
      return to_int(ExitCode::usage);
    }
    // Every other parse error is one line in dlready's style, ExitCode::usage (2).
    std::fprintf(stderr, "%s\n", parse_error_line(app, args, e.what()).c_str());
    return to_int(ExitCode::usage);
  }
  return run_parsed(app, groups, here);
}

}  // namespace
}  // namespace dlready

int main(int argc, char** argv) {
  using namespace dlready;
  if (auto rc = start_process(argc, argv)) return *rc;
  if (auto rc = run_command_line(argc, argv, /*one_command=*/true)) return *rc;
  return run_command_line(argc, argv, /*one_command=*/false).value_or(to_int(ExitCode::usage));
}
