#include "probe/requirement_markers.hpp"

#include <cctype>
#include <vector>

#include "core/text.hpp"

namespace dlready {
namespace {

// A marker's tokens: names, quoted strings, operators, parentheses.
struct Lexer {
  std::string_view s;
  size_t at = 0;
  bool failed = false;

  void skip() {
    while (at < s.size() && std::isspace(static_cast<unsigned char>(s[at]))) ++at;
  }
  std::string next() {
    skip();
    if (at >= s.size()) return "";
    char c = s[at];
    if (c == '(' || c == ')') return std::string(1, s[at++]);
    if (c == '"' || c == '\'') {
      size_t end = s.find(c, at + 1);
      if (end == std::string_view::npos) {
        failed = true;
        return "";
      }
      std::string quoted(s.substr(at, end - at + 1));
      at = end + 1;
      return quoted;
    }
    if (std::string_view("=!<>~").find(c) != std::string_view::npos) {
      size_t start = at;
      while (at < s.size() && std::string_view("=!<>~").find(s[at]) != std::string_view::npos) ++at;
      return std::string(s.substr(start, at - start));
    }
    size_t start = at;
    while (at < s.size() && (std::isalnum(static_cast<unsigned char>(s[at])) || s[at] == '_' || s[at] == '.')) ++at;
    if (at == start) {
      failed = true;
      ++at;
    }
    return std::string(s.substr(start, at - start));
  }
  std::string peek() {
    size_t keep = at;
    std::string t = next();
    at = keep;
    return t;
  }
};

struct Parser {
  Lexer lex;
  const MarkerEnvironment& env;
  int depth = 0;

  // A variable's value for this machine; nullopt when unknown, "" for a name markers do not have.
  std::optional<std::string> variable(const std::string& name, bool& known) {
    known = true;
    const std::string* v = name == "sys_platform"       ? &env.sys_platform
                           : name == "platform_system"  ? &env.platform_system
                           : name == "platform_machine" ? &env.platform_machine
                           : name == "python_version"   ? &env.python_version
                                                        : nullptr;
    if (v) return v->empty() ? std::nullopt : std::optional<std::string>(*v);
    known = name == "extra" || name == "os_name" || name == "python_full_version" || name == "implementation_name" ||
            name == "platform_python_implementation" || name == "platform_release" || name == "platform_version" ||
            name == "implementation_version";
    return std::nullopt;
  }

  bool compare(const std::string& left, const std::string& op, const std::string& right, bool versions) {
    int c = versions ? compare_versions(left, right) : left.compare(right);
    if (op == "==" || op == "===") return c == 0;
    if (op == "!=") return c != 0;
    if (op == "<") return c < 0;
    if (op == "<=") return c <= 0;
    if (op == ">") return c > 0;
    if (op == ">=" || op == "~=") return c >= 0;
    if (op == "in") return right.find(left) != std::string::npos;
    if (op == "not in") return right.find(left) == std::string::npos;
    lex.failed = true;
    return true;
  }

  bool atom() {
    std::string t = lex.next();
    if (t == "(") {
      if (++depth > 32) lex.failed = true;
      bool v = expr();
      if (lex.next() != ")") lex.failed = true;
      --depth;
      return v;
    }
    std::string left = t, op = lex.next();
    if (op == "not") op += " " + lex.next();
    std::string right = lex.next();
    if (left.empty() || right.empty()) {
      lex.failed = true;
      return true;
    }
    bool left_var = left[0] != '"' && left[0] != '\'';
    std::string var = left_var ? left : right, lit = left_var ? right : left;
    if (lit.size() < 2 || (lit[0] != '"' && lit[0] != '\'')) {
      lex.failed = true;
      return true;
    }
    lit = lit.substr(1, lit.size() - 2);
    bool known = true;
    auto value = variable(var, known);
    if (!known) lex.failed = true;
    if (var == "extra") return false;  // an extra is installed only when asked for
    if (!value) return true;            // unknown here: the requirement is kept
    bool versions = var == "python_version" || var == "python_full_version";
    return left_var ? compare(*value, op, lit, versions) : compare(lit, op, *value, versions);
  }

  bool conjunction() {
    bool v = atom();
    while (!lex.failed && lex.peek() == "and") {
      lex.next();
      v = atom() && v;
    }
    return v;
  }

  bool expr() {
    bool v = conjunction();
    while (!lex.failed && lex.peek() == "or") {
      lex.next();
      v = conjunction() || v;
    }
    return v;
  }
};

}  // namespace

std::optional<bool> marker_holds(std::string_view marker, const MarkerEnvironment& env) {
  if (marker.size() > 4096) return std::nullopt;
  Parser p{Lexer{marker}, env};
  p.lex.skip();
  if (p.lex.at >= marker.size()) return true;
  bool v = p.expr();
  if (p.lex.failed || !p.lex.next().empty()) return std::nullopt;
  return v;
}

}  // namespace dlready
