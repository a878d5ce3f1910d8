#include "cli/usage_hints.hpp"

#include <algorithm>
#include <cctype>

#include "core/edit_distance.hpp"

namespace dlready {
namespace {

std::vector<std::string> long_options(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::Option* o : cmd.get_options())
    for (const auto& n : o->get_lnames()) names.push_back("--" + n);
  return names;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// The first "--word" of the command's arguments (before a "--") that names no option of `cmd`.
std::optional<std::string> unknown_option(const CLI::App& cmd, int argc, const char* const* argv) {
  auto known = long_options(cmd);
  for (int i = 2; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--") break;
    if (a.size() < 3 || a.substr(0, 2) != "--") continue;
    std::string name(a.substr(0, a.find('=')));
    if (std::find(known.begin(), known.end(), name) == known.end()) return name;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> closest_choice(std::string_view word, const std::vector<std::string>& choices) {
  std::optional<std::string> best;
  size_t best_distance = 3;
  for (const auto& c : choices) {
    size_t d = edit_distance(word, c);
    if (d < best_distance) best_distance = d, best = c;
  }
  if (best) return best;
  std::vector<std::string> prefixed;
  for (const auto& c : choices)
    if (word.size() >= 3 && c.rfind(word, 0) == 0) prefixed.push_back(c);
  if (prefixed.size() == 1) return prefixed[0];
  return std::nullopt;
}

std::string usage_hint(const CLI::App& app, int argc, const char* const* argv) {
  if (argc < 2 || argv[1][0] == '-') return "";
  std::vector<std::string> commands;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) commands.push_back(sub->get_name());
  const std::string word = argv[1];
  auto is_command = std::find(commands.begin(), commands.end(), word) != commands.end();
  if (!is_command) {
    auto guess = closest_choice(word, commands);
    return "dlready: no command '" + word + "'" + (guess ? " (did you mean '" + *guess + "'?)" : "") +
           "; commands: " + join(commands);
  }
  const CLI::App* cmd = app.get_subcommand(word);
  auto bad = unknown_option(*cmd, argc, argv);
  if (!bad) return "";
  auto guess = closest_choice(*bad, long_options(*cmd));
  // `dlready launch --nproc-per-node 2 dlready train --epochs 2`: the program's options were read
  // as the launcher's. The fix is the separator, not another spelling.
  bool separated = false;
  for (int i = 2; i < argc; ++i) separated = separated || std::string(argv[i]) == "--";
  if (word == "launch" && !separated && !guess)
    return "dlready launch: unknown option " + *bad + ": put -- before the program, as in dlready launch "
           "--nproc-per-node 2 -- dlready train --epochs 2";
  return "dlready " + word + ": unknown option " + *bad + (guess ? " (did you mean " + *guess + "?)" : "") +
         "; see dlready " + word + " --help";
}

CLI::Validator device_validator(const std::string& extra) {
  return CLI::Validator(
      [extra](std::string& s) -> std::string {
        if (s == extra || s == "cpu" || s == "cuda") return "";
        if (s.rfind("cuda:", 0) == 0 && s.size() > 5 && s.size() <= 8 &&
            std::all_of(s.begin() + 5, s.end(), [](unsigned char c) { return std::isdigit(c); }))
          return "";
        return "not a device: " + s + " (use " + extra + ", cpu, cuda or cuda:N)";
      },
      "");
}

}  // namespace dlready
