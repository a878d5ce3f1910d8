// --help at the terminal's width: CLI11's formatter (2.1) writes each description on one line
// whatever its length (some reach 250 characters); this one wraps descriptions at word boundaries
// under their column. The width is the terminal's, else COLUMNS, else 80 (os/terminal.hpp).
#pragma once
#include <CLI/CLI.hpp>

#include <string>

namespace dlready {

class WrappingFormatter : public CLI::Formatter {
 public:
  explicit WrappingFormatter(int width);
  std::string make_option(const CLI::Option* opt, bool is_positional) const override;
  std::string make_subcommand(const CLI::App* sub) const override;
  std::string make_description(const CLI::App* app) const override;
  // An option's value as a user reads it (value_label), its default and what it excludes: never
  // CLI11's type tags ("TEXT:DIR=/", "INT:INT in [1 - 100000]").
  std::string make_option_opts(const CLI::Option* opt) const override;
  // Subcommands, then `help`, which main() spells out as --help.
  std::string make_subcommands(const CLI::App* app, CLI::AppFormatMode mode) const override;

 private:
  // `name`, then `desc` wrapped in the description column (beside the name, or under it).
  std::string entry(const std::string& name, const std::string& desc) const;
  int width_;
};

// What an option's value is, from its CLI11 type name, as help, the manual and completion show it:
// "TEXT:{error,warning}" -> "error|warning", "TEXT:DIR" -> "DIR", "INT:INT in [1 - 100]" -> "N",
// "FLOAT" -> "X", a name given by the command ("NAME", "PATH", "mlp|cnn") as it is, "TEXT" -> "VALUE".
// A plain TEXT is named after its option (`name`: "--out" -> FILE, "--data" -> DIR, "--python" -> X.Y).
std::string value_label(const std::string& type, const std::string& name = "");
// Whether such a value is a number, a name, a version or an address, never a file (completion
// offers no files for it).
bool value_is_not_a_file(const std::string& type, const std::string& name = "");

// `text` in lines of at most `width` characters (a word longer than that stands alone), each after
// the first indented by `indent` spaces; its own newlines are kept.
std::string wrap_text(const std::string& text, size_t width, size_t indent);

}  // namespace dlready
