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

// For a command line CLI11 refused: "dlready: no command 'trian' (did you mean 'train'?) ..." or
// "dlready train: unknown option --epoch (did you mean --epochs?)"; empty when neither applies.
[[nodiscard]] std::string usage_hint(const CLI::App& app, int argc, const char* const* argv);

// --device: `extra` ("auto" or "all") or cpu, cuda, cuda:N — checked before the module is loaded,
// so `--device gpu` is a usage error (exit 2), not a failed run.
[[nodiscard]] CLI::Validator device_validator(const std::string& extra);

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
