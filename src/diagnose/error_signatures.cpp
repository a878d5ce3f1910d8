#include "diagnose/error_signatures.hpp"

#include <algorithm>
#include <optional>

#include "core/text.hpp"

namespace dlready {

extern const char* const kErrorSignaturesTsv;

namespace {

constexpr size_t kMaxValue = 300;  // a value quoted back: a path, a symbol, a GPU's name

// A pattern's pieces: fixed text, or a value ({name}: the text up to the next fixed piece or the
// line's end; {name:word}: one word, its trailing punctuation dropped).
struct Piece {
  std::string text;  // the fixed text, or the value's name
  bool value = false, word = false;
};

std::vector<Piece> pieces_of(const std::string& pattern) {
  std::vector<Piece> out;
  size_t at = 0;
  while (at < pattern.size()) {
    size_t open = pattern.find('{', at), close = open == std::string::npos ? open : pattern.find('}', open);
    if (close == std::string::npos) {
      out.push_back({pattern.substr(at), false, false});
      break;
    }
    if (open > at) out.push_back({pattern.substr(at, open - at), false, false});
    std::string name = pattern.substr(open + 1, close - open - 1);
    bool word = ends_with(name, ":word");
    out.push_back({word ? name.substr(0, name.size() - 5) : name, true, word});
    at = close + 1;
  }
  return out;
}

// A pattern's pieces, split once. Fixed texts are found with string_view::find (memchr on the
// first byte, then a compare): at most a pattern's length of work per byte of the line, linear in
// the text for the catalogue's short texts, and several times faster than a byte-at-a-time scan.
struct CompiledSignature {
  const ErrorSignature* signature;
  std::vector<Piece> pieces;
};

const std::vector<CompiledSignature>& compiled() {
  static const std::vector<CompiledSignature> all = [] {
    std::vector<CompiledSignature> out;
    for (const auto& s : error_signatures()) {
      out.push_back({&s, pieces_of(s.pattern)});
    }
    return out;
  }();
  return all;
}

std::string trimmed_value(std::string_view v, bool word) {
  std::string s = trim(std::string(v.substr(0, 4 * kMaxValue)));
  if (word)
    while (!s.empty() && std::string_view(").,;:'\"]").find(s.back()) != std::string_view::npos) s.pop_back();
  return printable(s, kMaxValue);
}

// A value before the first fixed text: what follows the last ": " on the line (a Python
// exception's name, a log's prefix), or its last word.
std::string leading_value(std::string_view before, bool word) {
  if (word) {
    size_t space = before.find_last_of(" \t");
    return trimmed_value(space == std::string_view::npos ? before : before.substr(space + 1), true);
  }
  size_t colon = before.rfind(": ");
  return trimmed_value(colon == std::string_view::npos ? before : before.substr(colon + 2), false);
}

// The match of one signature on one line, if it matches.
std::optional<std::map<std::string, std::string>> match_line(const CompiledSignature& c, std::string_view line) {
  std::map<std::string, std::string> values;
  size_t first = 0;
  while (first < c.pieces.size() && c.pieces[first].value) ++first;
  if (first == c.pieces.size()) return std::nullopt;  // a pattern of values alone recognises nothing
  size_t at = line.find(c.pieces[first].text);
  if (at == std::string_view::npos) return std::nullopt;
  for (size_t i = 0; i < first; ++i) values[c.pieces[i].text] = leading_value(line.substr(0, at), c.pieces[i].word);
  at += c.pieces[first].text.size();
  for (size_t i = first + 1; i < c.pieces.size(); ++i) {
    const Piece& p = c.pieces[i];
    if (!p.value) {
      if (line.substr(at, p.text.size()) != p.text) return std::nullopt;
      at += p.text.size();
      continue;
    }
    bool last = i + 1 == c.pieces.size();
    size_t next = last ? std::string_view::npos : line.find(c.pieces[i + 1].text, at);
    size_t end = last && !p.word ? line.size() : next;
    if (p.word) end = std::min(line.find_first_of(" \t", at), next);  // a word ends at a space or at what follows it
    if (end == std::string_view::npos) {
      if (!p.word) return std::nullopt;
      end = line.size();
    }
    values[p.text] = trimmed_value(line.substr(at, end - at), p.word);
    at = end;
  }
  return values;
}

// What follows from the values: the CUDA version a driver reports as 11040 is 11.4.
void derive_values(std::map<std::string, std::string>& values) {
  auto it = values.find("driver");
  if (it == values.end()) return;
  auto v = parse_int(it->second);
  if (v && *v >= 1000 && *v < 100000) values["driver_cuda"] = std::to_string(*v / 1000) + "." + std::to_string(*v % 1000 / 10);
}

}  // namespace

const std::vector<ErrorSignature>& error_signatures() {
  static const std::vector<ErrorSignature> table = [] {
    std::vector<ErrorSignature> out;
    for (const auto& line : lines(kErrorSignaturesTsv)) {
      if (line.empty() || line[0] == '#') continue;
      auto f = split(line, '\t', true);
      if (f.size() < 7) continue;
      out.push_back({f[0], split(f[1], ' '), f[2], f[3], f[4], f[5], f[6] == "-" ? "" : f[6]});
    }
    return out;
  }();
  return table;
}

std::vector<const ErrorSignature*> signatures_for_finding(const std::string& id) {
  std::vector<const ErrorSignature*> out;
  for (const auto& s : error_signatures())
    for (const auto& f : s.findings)
      if (f == id) out.push_back(&s);
  return out;
}

std::vector<SignatureMatch> match_error_signatures(std::string_view text) {
  std::vector<SignatureMatch> out;
  size_t number = 0, start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    std::string_view line = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    start = end == std::string_view::npos ? text.size() : end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    for (const auto& c : compiled()) {
      auto values = match_line(c, line);
      if (!values) continue;
      derive_values(*values);
      bool seen = false;
      for (const auto& m : out) seen |= m.signature == c.signature && m.values == *values;
      if (!seen) out.push_back({c.signature, number, printable(trim(std::string(line.substr(0, 4096))), 400), *values});
      break;  // the first signature in table order is the most specific
    }
  }
  return out;
}

std::string readable_pattern(const ErrorSignature& s) {
  std::string out;
  for (const auto& p : pieces_of(s.pattern)) out += p.value ? "{" + p.text + "}" : p.text;
  return out;
}

std::string signature_advice(const SignatureMatch& m) {
  std::string out;
  const std::string& advice = m.signature->advice;
  for (size_t at = 0; at < advice.size();) {
    size_t open = advice.find('{', at), close = open == std::string::npos ? open : advice.find('}', open);
    if (close == std::string::npos) {
      out += advice.substr(at);
      break;
    }
    out += advice.substr(at, open - at);
    auto it = m.values.find(advice.substr(open + 1, close - open - 1));
    out += it != m.values.end() ? it->second : "?";
    at = close + 1;
  }
  return out;
}

}  // namespace dlready
