#include "cli/help_format.hpp"

#include <algorithm>
#include <sstream>

namespace dlready {

std::string wrap_text(const std::string& text, size_t width, size_t indent) {
  width = std::max<size_t>(width, 20);
  std::string out;
  size_t line = 0;  // characters on the current line, its indent not counted
  auto newline = [&] {
    out += "\n" + std::string(indent, ' ');
    line = 0;
  };
  std::istringstream paragraphs(text);
  bool first_paragraph = true;
  for (std::string paragraph; std::getline(paragraphs, paragraph);) {
    if (!first_paragraph) newline();
    first_paragraph = false;
    std::istringstream words(paragraph);
    bool first_word = true;
    for (std::string word; words >> word;) {
      if (!first_word && line + 1 + word.size() > width) newline();
      else if (!first_word) out += ' ', ++line;
      out += word;
      line += word.size();
      first_word = false;
    }
  }
  return out;
}

WrappingFormatter::WrappingFormatter(int width) : width_(std::max(width, 40)) {}

std::string WrappingFormatter::entry(const std::string& name, const std::string& desc) const {
  std::string out = name;
  if (!desc.empty()) {
    // As CLI11: a name wider than its column (or wrapped) puts the description on the next line.
    const size_t column = get_column_width();
    bool own_line = name.size() >= column || name.find('\n') != std::string::npos;
    out += own_line ? "\n" + std::string(column, ' ') : std::string(column - name.size(), ' ');
    out += wrap_text(desc, static_cast<size_t>(width_) - column, column);
  }
  return out + "\n";
}

std::string WrappingFormatter::make_option(const CLI::Option* opt, bool is_positional) const {
  // A long left side (a name, its type, "Excludes: ...") wraps too, its later lines indented.
  return entry("  " + wrap_text(make_option_name(opt, is_positional) + make_option_opts(opt),
                                static_cast<size_t>(width_) - 2, 6),
               make_option_desc(opt));
}

std::string WrappingFormatter::make_subcommand(const CLI::App* sub) const {
  return entry("  " + sub->get_display_name(true), sub->get_description());
}

std::string WrappingFormatter::make_description(const CLI::App* app) const {
  std::string plain = CLI::Formatter::make_description(app);
  if (plain.empty()) return plain;
  bool ends_nl = plain.back() == '\n';
  return wrap_text(ends_nl ? plain.substr(0, plain.size() - 1) : plain, static_cast<size_t>(width_), 0) +
         (ends_nl ? "\n" : "");
}

}  // namespace dlready
