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

 private:
  // `name`, then `desc` wrapped in the description column (beside the name, or under it).
  std::string entry(const std::string& name, const std::string& desc) const;
  int width_;
};

// `text` in lines of at most `width` characters (a word longer than that stands alone), each after
// the first indented by `indent` spaces; its own newlines are kept.
std::string wrap_text(const std::string& text, size_t width, size_t indent);

}  // namespace dlready
