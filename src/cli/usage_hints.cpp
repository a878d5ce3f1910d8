#include "cli/usage_hints.hpp"

#include <algorithm>
#include <cctype>

#include "core/edit_distance.hpp"
#include "core/scan.hpp"
#include "core/text.hpp"

namespace dlready {
namespace {

// What the user typed, quoted in a line: control characters shown as \xNN, cut to 80 bytes.
std::string typed(std::string_view s) { return printable(s, 80); }

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

// "+12", "-3" (whole) or "1.5", ".5", "2e-3" (any number): the values CLI11's range check reads.
bool is_number_text(std::string_view s, bool whole) {
  TextCursor c{s};
  static_cast<void>(c.eat("+") || c.eat("-"));
  size_t digits = c.take(is_ascii_digit).size();
  if (whole) return digits > 0 && c.done();
  if (c.eat(".")) digits += c.take(is_ascii_digit).size();
  if (digits == 0) return false;
  if (c.eat("e") || c.eat("E")) {
    static_cast<void>(c.eat("+") || c.eat("-"));
    if (c.take(is_ascii_digit).empty()) return false;
  }
  return c.done();
}

// "--epochs: Value one not in range 1 to 100000" -> "dlready train --epochs: 'one' is not a whole
// number (1 to 100000)" (or "... 0 is out of range (1 to 100000)"). The value is quoted as typed,
// made printable and cut to 80 bytes.
std::optional<std::string> range_hint(const std::string& command, std::string_view error) {
  TextCursor c{error};
  if (!c.eat("--") ||
      c.take([](char ch) { return is_ascii_alnum(ch) || ch == '_' || ch == '-'; }).empty())
    return std::nullopt;
  const std::string option(error.substr(0, c.at));
  if (!c.eat(": Value ")) return std::nullopt;
  const size_t value_start = c.at, marker = error.rfind(" not in range ");
  if (marker == std::string_view::npos || marker < value_start) return std::nullopt;
  TextCursor bounds{error, marker + 14};
  auto not_space = [](char ch) { return !is_ascii_space(ch); };
  const std::string lo(bounds.take(not_space));
  if (lo.empty() || !bounds.eat(" to ")) return std::nullopt;
  const std::string hi(bounds.take(not_space));
  if (hi.empty() || !bounds.done()) return std::nullopt;
  const std::string_view value = error.substr(value_start, marker - value_start);
  const bool whole = lo.find_first_of(".e") == std::string::npos && hi.find_first_of(".e") == std::string::npos;
  const std::string shown = typed(value);
  return "dlready " + command + " " + option + ": " +
         (is_number_text(value, whole) ? shown + " is out of range"
                                       : "'" + shown + "' is not a " + (whole ? "whole number" : "number")) +
         " (" + lo + " to " + hi + ")";
}

}  // namespace

std::string usage_line(const CLI::App& cmd, const std::string& path) {
  std::string line = "dlready " + (path.empty() ? cmd.get_name() : path);
  for (const CLI::Option* o : cmd.get_options()) {
    if (o->get_positional()) {
      std::string name = o->get_name();
      std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
      line += " " + (o->get_required() ? name : "[" + name + "]");
    } else if (o->get_required() && !o->get_lnames().empty()) {
      std::string meta = o->get_lnames().front();
      std::transform(meta.begin(), meta.end(), meta.begin(), [](unsigned char c) { return c == '-' ? '_' : std::toupper(c); });
      line += " --" + o->get_lnames().front() + " " + meta;
    }
  }
  return line + " [options]";
}

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

std::optional<std::string> usage_hint(const CLI::App& app, int argc, const char* const* argv,
                                      const std::string& error) {
  if (argc < 2 || argv[1][0] == '-') return std::nullopt;
  std::vector<std::string> commands;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) commands.push_back(sub->get_name());
  const std::string word = argv[1];
  auto is_command = std::find(commands.begin(), commands.end(), word) != commands.end();
  if (!is_command) {
    auto guess = closest_choice(word, commands);
    return "dlready: no command '" + typed(word) + "'" + (guess ? " (did you mean '" + *guess + "'?)" : "") +
           "; commands: " + join(commands);
  }
  const CLI::App* cmd = app.get_subcommand(word);
  // `dlready audit verif x`: the sub-subcommand gets a did-you-mean like a command.
  std::vector<std::string> subcommands;
  for (const CLI::App* s : cmd->get_subcommands([](const CLI::App*) { return true; })) subcommands.push_back(s->get_name());
  if (!subcommands.empty() && argc > 2 && argv[2][0] != '-' &&
      std::find(subcommands.begin(), subcommands.end(), argv[2]) == subcommands.end()) {
    auto guess = closest_choice(argv[2], subcommands);
    return "dlready " + word + ": no subcommand '" + typed(argv[2]) + "'" + (guess ? " (did you mean '" + *guess + "'?)" : "") +
           "; subcommands: " + join(subcommands);
  }
  if (error == "A subcommand is required")
    return "dlready " + word + ": say which: " + join(subcommands) + " (dlready " + word + " " + subcommands.front() +
           " --help)";
  // The command as typed, down to a subcommand: `audit verify` names its own arguments.
  std::string path = word;
  const CLI::App* named = cmd;
  if (argc > 2 && std::find(subcommands.begin(), subcommands.end(), argv[2]) != subcommands.end())
    named = cmd->get_subcommand(argv[2]), path += " " + std::string(argv[2]);
  if (auto range = range_hint(path, error)) return range;
  if (error.size() > 12 && error.compare(error.size() - 12, 12, " is required") == 0) {
    std::string what = error.substr(0, error.size() - 12);
    std::string upper = what;
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
    return "dlready " + path + ": " + (what.rfind("--", 0) == 0 ? "the option " + what : "the " + upper + " argument") +
           " is missing; usage: " + usage_line(*named, path);
  }
  auto bad = unknown_option(*cmd, argc, argv);
  if (!bad) return std::nullopt;
  auto guess = closest_choice(*bad, long_options(*cmd));
  // `dlready launch --nproc-per-node 2 dlready train --epochs 2`: the program's options were read
  // as the launcher's. The fix is the separator, not another spelling.
  bool separated = false;
  for (int i = 2; i < argc; ++i) separated = separated || std::string(argv[i]) == "--";
  if (word == "launch" && !separated && !guess)
    return "dlready launch: unknown option " + typed(*bad) + ": put -- before the program, as in dlready launch "
           "--nproc-per-node 2 -- dlready train --epochs 2";
  return "dlready " + word + ": unknown option " + typed(*bad) + (guess ? " (did you mean " + *guess + "?)" : "") +
         "; see dlready " + word + " --help";
}

CLI::Validator device_validator(const std::string& extra) {
  return CLI::Validator(
      [extra](std::string& s) -> std::string {
        if (s == extra || s == "cpu" || s == "cuda") return "";
        if (s.rfind("cuda:", 0) == 0 && s.size() > 5 && s.size() <= 8 &&
            std::all_of(s.begin() + 5, s.end(), [](unsigned char c) { return std::isdigit(c); }))
          return "";
        return "not a device: " + typed(s) + " (use " + extra + ", cpu, cuda or cuda:N)";
      },
      // Shown in help as TEXT:{...}; completion offers the words (not the cuda:N placeholder).
      "{" + extra + ",cpu,cuda,cuda:N}");
}

}  // namespace dlready
