#include "core/json_text.hpp"

#include <array>
#include <charconv>
#include <cstdio>
#include <optional>
#include <set>
#include <vector>

#include "core/text.hpp"

namespace dlready {

size_t json_nesting_depth(std::string_view text, size_t stop) {
  size_t depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest && (deepest = depth) >= stop) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

namespace {

// nlohmann's DOM builder, fed by one SAX pass that also notes the first key an object holds twice
// (the DOM keeps only the last value: two readers of one file could see two different documents).
struct DomRefusingDuplicateKeys : nlohmann::json_sax<nlohmann::json> {
  explicit DomRefusingDuplicateKeys(nlohmann::json& root) : dom(root, /*allow_exceptions=*/false) {}
  nlohmann::detail::json_sax_dom_parser<nlohmann::json> dom;
  std::vector<std::set<std::string>> open_objects;
  std::string duplicate;
  bool null() override { return dom.null(); }
  bool boolean(bool b) override { return dom.boolean(b); }
  bool number_integer(number_integer_t v) override { return dom.number_integer(v); }
  bool number_unsigned(number_unsigned_t v) override { return dom.number_unsigned(v); }
  bool number_float(number_float_t v, const string_t& s) override { return dom.number_float(v, s); }
  bool string(string_t& v) override { return dom.string(v); }
  bool binary(binary_t& v) override { return dom.binary(v); }
  bool start_object(std::size_t n) override {
    open_objects.emplace_back();
    return dom.start_object(n);
  }
  bool key(string_t& k) override {
    if (!open_objects.empty() && !open_objects.back().insert(k).second && duplicate.empty()) duplicate = k;
    return dom.key(k);
  }
  bool end_object() override {
    if (!open_objects.empty()) open_objects.pop_back();
    return dom.end_object();
  }
  bool start_array(std::size_t n) override { return dom.start_array(n); }
  bool end_array() override { return dom.end_array(); }
  bool parse_error(std::size_t at, const std::string& token, const nlohmann::detail::exception& e) override {
    return dom.parse_error(at, token, e);
  }
};

}  // namespace

nlohmann::json parse_json_bounded(std::string_view text, std::string* error, JsonLimits limits) {
  auto fail = [&](std::string why) {
    if (error) *error = std::move(why);
    return nlohmann::json(nlohmann::json::value_t::discarded);
  };
  if (json_nesting_depth(text, limits.max_depth + 1) > limits.max_depth)
    return fail("nested deeper than " + std::to_string(limits.max_depth) + " levels");
  // One pass: the DOM and the duplicate keys together. nlohmann's DOM parser with a callback scans
  // the parent for a discarded value at every object's end, quadratic in an array of objects (an
  // index page of 200k files took a minute); a second SAX pass of its own doubled every read.
  nlohmann::json j;
  std::string duplicate;
  if (limits.refuse_duplicate_keys) {
    DomRefusingDuplicateKeys sax(j);
    if (!nlohmann::json::sax_parse(text.begin(), text.end(), &sax) || sax.dom.is_errored()) return fail("not JSON");
    duplicate = sax.duplicate;
  } else {
    j = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  }
  if (j.is_discarded()) return fail("not JSON");
  if (!duplicate.empty()) return fail("the key \"" + duplicate + "\" appears twice in one object");
  if (error) error->clear();
  return j;
}

namespace {

// C1 controls and the bidirectional overrides are valid UTF-8 that nlohmann writes raw; a terminal
// or a viewer acts on them (U+202E reverses what follows), so each becomes its \u escape. Both
// begin with 0xC2 or 0xE2 (c & 0xDF == 0xC2 picks exactly those two): the runs between are copied
// whole, and a text without either (nearly every one) is returned as it is. `text` is one quoted
// JSON string as written: the bytes it escapes are inside it.
std::string without_c1_or_bidi(std::string text) {
  auto lead = [&](size_t from) {
    while (from < text.size() && (static_cast<unsigned char>(text[from]) & 0xDF) != 0xC2) ++from;
    return from;
  };
  size_t next = lead(0);
  if (next == text.size()) return text;
  std::string out;
  out.reserve(text.size() + 16);
  size_t copied = 0;
  for (; next < text.size(); next = lead(next)) {
    unsigned cp = 0;
    size_t n = 0;
    if (static_cast<unsigned char>(text[next]) == 0xC2 && next + 1 < text.size() &&
        static_cast<unsigned char>(text[next + 1]) < 0xA0)
      cp = (static_cast<unsigned char>(text[next + 1]) & 0x3F) | 0x80, n = 2;
    else if (auto bidi = bidi_control_at(text, next))
      cp = *bidi, n = 3;
    if (!n) {
      ++next;
      continue;
    }
    out.append(text, copied, next - copied);
    char esc[8];
    std::snprintf(esc, sizeof esc, "\\u%04x", cp);
    out += esc;
    next += n;
    copied = next;
  }
  out.append(text, copied, std::string::npos);
  return out;
}

// nlohmann's dump, byte for byte, with the common cases written directly: a string of valid UTF-8
// copied with nlohmann's escapes, an integer by to_chars. The rest (a string that is not UTF-8,
// whose U+FFFD nlohmann places; a float's shortest form) is nlohmann's own dump of that one value
// (a binary value, which no document here holds, prints on one line). A report's 73 KB went through nlohmann's per-byte UTF-8 check: 2.8 M of
// a doctor run's 22 M instructions.
class JsonWriter {
 public:
  JsonWriter(std::string& out, int indent) : out_(out), indent_(indent) {}

  void value(const nlohmann::json& j, int depth) {
    switch (j.type()) {
      case nlohmann::json::value_t::object: return members(j, depth, '{', '}');
      case nlohmann::json::value_t::array: return members(j, depth, '[', ']');
      case nlohmann::json::value_t::string: return string(j.get_ref<const std::string&>());
      case nlohmann::json::value_t::boolean: out_ += j.get<bool>() ? "true" : "false"; return;
      case nlohmann::json::value_t::null: out_ += "null"; return;
      case nlohmann::json::value_t::number_integer: return integer(j.get<int64_t>());
      case nlohmann::json::value_t::number_unsigned: return integer(j.get<uint64_t>());
      default: out_ += j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);  // float, binary, discarded
    }
  }

 private:
  // An object's or an array's members as nlohmann writes them: "{}" or "[]" when there are none,
  // else each after a line break (and an object's each after its key).
  void members(const nlohmann::json& j, int depth, char open, char close) {
    out_ += open;
    if (j.empty()) {
      out_ += close;
      return;
    }
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!first) out_ += ',';
      first = false;
      line_break(depth + 1);
      if (j.is_object()) {
        string(it.key());
        out_ += indent_ >= 0 ? ": " : ":";
      }
      value(it.value(), depth + 1);
    }
    line_break(depth);
    out_ += close;
  }

  void line_break(int depth) {
    if (indent_ < 0) return;
    out_ += '\n';
    out_.append(static_cast<size_t>(indent_) * static_cast<size_t>(depth), ' ');
  }

  // nlohmann's escapes: the short ones, \u00xx for other controls; DEL and valid UTF-8 as they are
  // (but C1 controls and bidi overrides, which json_text escapes: without_c1_or_bidi).
  void string(const std::string& s) {
    // A table look-up a byte, without branches (a report's strings are ~60 KB).
    static constexpr auto kEscaped = [] {
      std::array<unsigned char, 256> t{};
      for (int c = 0; c < 0x20; ++c) t[c] = 1;
      t['"'] = t['\\'] = 1;
      return t;
    }();
    unsigned char bits = 0, special = 0;
    for (unsigned char c : s) {
      bits |= c;
      special |= kEscaped[c];
    }
    const bool ascii = bits < 0x80, plain = special == 0;
    if (ascii && plain) {
      out_ += '"';
      out_ += s;
      out_ += '"';
      return;
    }
    if (!ascii && !is_valid_utf8(s)) {  // U+FFFD where a sequence breaks, as nlohmann places it
      out_ += without_c1_or_bidi(nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
      return;
    }
    const size_t start = out_.size();
    out_ += '"';
    for (unsigned char c : s) escaped(c);
    out_ += '"';
    if (!ascii) out_.replace(start, std::string::npos, without_c1_or_bidi(out_.substr(start)));
  }

  void escaped(unsigned char c) {
    switch (c) {
      case '"': out_ += "\\\""; return;
      case '\\': out_ += "\\\\"; return;
      case '\b': out_ += "\\b"; return;
      case '\f': out_ += "\\f"; return;
      case '\n': out_ += "\\n"; return;
      case '\r': out_ += "\\r"; return;
      case '\t': out_ += "\\t"; return;
      default:
        if (c >= 0x20) {
          out_ += static_cast<char>(c);
        } else {
          constexpr char kHex[] = "0123456789abcdef";
          out_ += "\\u00";
          out_ += kHex[c >> 4];
          out_ += kHex[c & 0xF];
        }
    }
  }

  template <class Int>
  void integer(Int v) {
    char digits[24];
    auto [end, ec] = std::to_chars(digits, digits + sizeof digits, v);
    out_.append(digits, static_cast<size_t>(end - digits));
  }

  std::string& out_;
  const int indent_;
};

}  // namespace

std::string json_text(const nlohmann::json& j, int indent) {
  std::string text;
  JsonWriter(text, indent).value(j, 0);
  return text;
}

bool is_valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    uint32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
    for (size_t k = 1; k < n; ++k) {
      auto d = static_cast<unsigned char>(s[i + k]);
      if ((d >> 6) != 0x2) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8 either.
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += n;
  }
  return true;
}

}  // namespace dlready
