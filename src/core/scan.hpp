// A cursor over text for the small grammars dlready reads from untrusted places (a root's files, a
// socket, an argument, an environment variable). Every step moves forward or fails without moving,
// so a parse is linear in the text: the standard library's regex recurses once per character and
// overflows the stack on a long line, which is why no reader of untrusted text uses it.
#pragma once
#include <cstddef>
#include <string_view>
#include <vector>

namespace dlready {

inline bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_ascii_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool is_ascii_alnum(char c) { return is_ascii_digit(c) || is_ascii_alpha(c); }
inline bool is_hex_digit(char c) { return is_ascii_digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f'); }
// What regex's \s matches in the "C" locale.
inline bool is_ascii_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
// What regex's \b counts as a word character.
inline bool is_word_char(char c) { return is_ascii_alnum(c) || c == '_'; }

struct TextCursor {
  std::string_view text;
  size_t at = 0;

  [[nodiscard]] bool done() const { return at >= text.size(); }
  [[nodiscard]] char peek() const { return done() ? '\0' : text[at]; }
  [[nodiscard]] std::string_view rest() const { return text.substr(at < text.size() ? at : text.size()); }
  // Consumes `literal` when the text continues with it.
  [[nodiscard]] bool eat(std::string_view literal) {
    if (rest().substr(0, literal.size()) != literal) return false;
    at += literal.size();
    return true;
  }
  // The longest run (at most `max` characters) of characters for which `keep` holds, consumed.
  template <class Keep>
  std::string_view take(Keep keep, size_t max = std::string_view::npos) {
    size_t start = at;
    while (!done() && at - start < max && keep(text[at])) ++at;
    return text.substr(start, at - start);
  }
  void skip_spaces() { take(is_ascii_space); }
  // A run of between `min` and `max` characters for which `keep` holds, not followed by another:
  // consumed and returned, else nothing is consumed and an empty view is returned.
  template <class Keep>
  [[nodiscard]] std::string_view take_exactly(Keep keep, size_t min, size_t max) {
    size_t start = at;
    auto run = take(keep, max);
    if (run.size() < min || (!done() && keep(peek()))) {
      at = start;
      return {};
    }
    return run;
  }
};

// The leading "3.X.Y" of a Python version text ("3.11.7", "3.11.7+", "3.12.0rc1"), each number at
// most 4 digits; empty when the text does not start so (a 60,000-digit "version" is no version).
inline std::string_view leading_python_version(std::string_view s) {
  TextCursor c{s};
  if (!c.eat("3.") || c.take_exactly(is_ascii_digit, 1, 4).empty() || !c.eat(".") ||
      c.take_exactly(is_ascii_digit, 1, 4).empty())
    return {};
  return s.substr(0, c.at);
}

// Finds a fixed text in texts in time linear in both (Knuth-Morris-Pratt): std::string::find
// compares afresh at every position, quadratic for a long run of one character in both.
class LinearFinder {
 public:
  explicit LinearFinder(std::string_view needle) : needle_(needle), fallback_(needle.size(), 0) {
    for (size_t i = 1, k = 0; i < needle.size(); ++i) {
      while (k > 0 && needle[i] != needle[k]) k = fallback_[k - 1];
      if (needle[i] == needle[k]) ++k;
      fallback_[i] = k;
    }
  }
  // The first occurrence at or after `from`, else npos.
  [[nodiscard]] size_t find(std::string_view text, size_t from) const {
    if (needle_.empty()) return from <= text.size() ? from : std::string_view::npos;
    for (size_t i = from, k = 0; i < text.size(); ++i) {
      while (k > 0 && text[i] != needle_[k]) k = fallback_[k - 1];
      if (text[i] == needle_[k] && ++k == needle_.size()) return i + 1 - k;
    }
    return std::string_view::npos;
  }

 private:
  std::string_view needle_;
  std::vector<size_t> fallback_;
};

}  // namespace dlready
