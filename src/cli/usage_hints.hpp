// What the command line most likely meant: the one-line answer for a mistyped command or option
// ("did you mean"), and the validators the commands share.
#pragma once
#include <CLI/CLI.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dlready {

// The closest of `choices` to `word` (edit distance at most 2, or a unique prefix), if any.
[[nodiscard]] std::optional<std::string> closest_choice(std::string_view word, const std::vector<std::string>& choices);

// For a command line CLI11 refused (`error`: its message): "dlready: no command 'trian' (did you
// mean 'train'?) ...", "dlready train: unknown option --epoch (did you mean --epochs?)", "dlready
// audit: no subcommand 'verif' (did you mean 'verify'?)", "dlready train --epochs: 'one' is not a
// whole number (1 to 100000)", "dlready export-model: the CHECKPOINT argument is missing; usage:
// ..."; nullopt when none applies (CLI11's own message is shown then).
[[nodiscard]] std::optional<std::string> usage_hint(const CLI::App& app, int argc,
                                                    const char* const* argv,
                                                    const std::string& error = "");

// "dlready export-model CHECKPOINT --out OUT [options]": the positionals and required options.
// `path`: the command as typed ("audit verify"); "" = the command's own name.
[[nodiscard]] std::string usage_line(const CLI::App& cmd, const std::string& path = "");

// --device: `extra` ("auto" or "all") or cpu, cuda, cuda:N — checked before the module is loaded,
// so `--device gpu` is a usage error (exit 2), not a failed run.
[[nodiscard]] CLI::Validator device_validator(const std::string& extra);

// --load-root-drivers, the same on every command that takes --root.
inline constexpr const char* kLoadRootDriversHelp =
    "Under --root, load its libcuda/libnvidia-ml (runs that folder's code as you: only for a fixture root you built)";

// An enum option shown by its names: "--model mlp|cnn [mlp]" instead of CLI11's numeric mapping.
template <class Enum>
CLI::Option* add_enum_option(CLI::App* cmd, const std::string& name, Enum& value, const std::map<std::string, Enum>& names,
                             const std::string& help, const char* default_name) {
  std::string type;
  for (const auto& [n, v] : names) type += (type.empty() ? "" : "|") + n;
  return cmd->add_option(name, value, help)
      ->transform(CLI::CheckedTransformer(names).description(""))
      ->type_name(type)
      ->default_str(default_name);
}

}  // namespace dlready
