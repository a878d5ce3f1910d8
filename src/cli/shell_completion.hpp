// `dlready completion bash|zsh|fish` and `dlready man`: generated from the command table itself
// (the CLI11 app every command registers with), so they never drift from what the binary accepts.
#pragma once
#include <CLI/CLI.hpp>

#include <string>

namespace dlready {

// The script for `shell` (bash, zsh or fish); "" for another shell.
[[nodiscard]] std::string completion_script(const CLI::App& app, const std::string& shell);

// dlready(1) in roff: every command, its arguments and options with their help and defaults, the
// exit statuses.
[[nodiscard]] std::string man_page(const CLI::App& app, const std::string& version, const std::string& date);

}  // namespace dlready
