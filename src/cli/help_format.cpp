#include "cli/help_format.hpp"

#include <algorithm>

#include "core/text.hpp"
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

namespace {

// What a plain TEXT option's value is, by the option's name.
std::string label_of_name(const std::string& name) {
  static const std::pair<const char*, const char*> kLabels[] = {
      {"--out", "FILE"}, {"--from", "FILE"}, {"--report", "FILE"}, {"--key-file", "FILE"}, {"--audit-log", "FILE"},
      {"--audit-sign-key", "FILE"}, {"--job-token-file", "FILE"}, {"--init", "FILE"}, {"--data", "DIR"},
      {"--binary", "PATH"}, {"--master-addr", "HOST"}, {"--passphrase-env", "VAR"}, {"--python", "X.Y"},
      {"--torch", "VERSION"}, {"--driver", "VERSION"}, {"--jetpack", "VERSION"}, {"--macos", "VERSION"},
      {"--with", "PACKAGE"}, {"--index-url", "URL"}, {"--torch-index", "URL"}, {"--gpu", "GPU"},
      {"--user", "NAME"}, {"--conda", "NAME"}, {"--platform", "PLATFORM"}, {"--cuda", "VARIANT"}};
  for (const auto& [option, label] : kLabels)
    if (name == option) return label;
  return "VALUE";
}

}  // namespace

std::string value_label(const std::string& type, const std::string& name) {
  if (auto open = type.find(":{"); open != std::string::npos && type.back() == '}') {
    std::string inside = type.substr(open + 2, type.size() - open - 3);
    std::replace(inside.begin(), inside.end(), ',', '|');
    return inside;
  }
  const std::string head = type.substr(0, type.find(':'));
  const std::string tail = type.find(':') == std::string::npos ? "" : type.substr(type.find(':') + 1);
  if (head == "INT" || head == "UINT") return "N";
  if (head == "FLOAT") return "X";
  if (starts_with(tail, "PATH")) return "PATH";
  if (!tail.empty() && tail.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ") == std::string::npos) return tail;
  return head == "TEXT" ? label_of_name(name) : head;
}

bool value_is_not_a_file(const std::string& type, const std::string& name) {
  const std::string label = value_label(type, name);
  for (const char* word : {"N", "X", "NAME", "HOST", "VAR", "X.Y", "VERSION", "PACKAGE", "URL", "GPU", "PLATFORM", "VARIANT"})
    if (label == word) return true;
  return false;
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

std::string WrappingFormatter::make_option_opts(const CLI::Option* opt) const {
  if (!opt->get_option_text().empty()) return " " + opt->get_option_text();
  std::string out;
  if (opt->get_type_size() != 0) {
    // A positional's name says what it is ("env", "snapshot"); an option gets its value's label.
    if (!opt->get_positional())
      out += " " + value_label(opt->get_type_name(), opt->get_lnames().empty() ? "" : "--" + opt->get_lnames().front());
    if (opt->get_expected_max() == CLI::detail::expected_max_vector_size) out += " ...";
    const std::string dflt = opt->get_default_str();
    if (!dflt.empty() && dflt != "[]" && dflt != "\"\"") out += " (default " + dflt + ")";
    if (opt->get_required()) out += " (required)";
  }
  if (!opt->get_excludes().empty()) {
    out += " (not with";
    for (const CLI::Option* x : opt->get_excludes()) out += " " + x->get_name();
    out += ")";
  }
  return out;
}

std::string WrappingFormatter::make_subcommands(const CLI::App* app, CLI::AppFormatMode mode) const {
  std::string out = CLI::Formatter::make_subcommands(app, mode);
  if (app->get_parent() == nullptr && !out.empty())
    out += entry("  help [COMMAND]", "This help, or a command's (the same as COMMAND --help)");
  return out;
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
