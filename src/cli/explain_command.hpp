// `dlready explain`: from the error a user has to the cause and the fix. The text (arguments, a
// file, or standard input) is matched against the catalogue of error signatures
// (diagnose/error_signatures.hpp); each finding they point to is confirmed on this machine by the
// doctor's own examination, or said to be likely from the message alone. `dlready explain ID`
// prints a finding's catalogue entry and the messages that point to it.
#pragma once
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/front_end.hpp"
#include "core/exit_code.hpp"

namespace dlready {

struct ExplainArgs {
  std::vector<std::string> text;  // the message's words, or "-" for standard input, or a finding id
  std::string from;               // --from FILE
  std::vector<std::string> reports;  // --report FILE: a pasted collect_env (and its error), this machine not examined
  bool json = false, markdown = false, no_examine = false;
  std::string root = "/";         // as doctor --root (the test seam; a capture replayed)
  bool load_root_drivers = false;
};

void add_explain_command(CLI::App& app, ExplainArgs& args);
ExitCode run_explain(const ExplainArgs& args);
CommandGroup explain_command_group();

}  // namespace dlready
