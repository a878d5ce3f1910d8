#include "core/text.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>

namespace dlready {

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::vector<std::string> split(std::string_view s, char sep, bool keep_empty) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= s.size()) {
    size_t j = s.find(sep, i);
    if (j == std::string_view::npos) j = s.size();
    std::string part(s.substr(i, j - i));
    if (keep_empty || !part.empty()) out.push_back(part);
    i = j + 1;
  }
  return out;
}

std::vector<std::string> lines(std::string_view s) {
  auto out = split(s, '\n', true);
  if (!out.empty() && out.back().empty()) out.pop_back();
  for (auto& l : out)
    if (!l.empty() && l.back() == '\r') l.pop_back();
  return out;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view x) {
  return s.size() >= x.size() && s.substr(s.size() - x.size()) == x;
}
bool contains(std::string_view s, std::string_view n) { return s.find(n) != std::string_view::npos; }

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<long long> parse_int(std::string_view s, int base) {
  std::string t = trim(s);
  std::string_view v = t;
  if (base == 16 && (starts_with(v, "0x") || starts_with(v, "0X"))) v.remove_prefix(2);
  if (v.empty()) return std::nullopt;
  long long out = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out, base);
  if (ec != std::errc() || ptr != v.data() + v.size()) return std::nullopt;
  return out;
}

namespace {

// The next dot-separated component of `rest` as parse_int reads it (0 where it is no integer, as
// "0rc1" or ""), and `rest` past it; allocation-free: plans sort the tables with this thousands
// of times a doctor run.
long long next_version_part(std::string_view& rest) {
  const size_t dot = rest.find('.');
  std::string_view part = rest.substr(0, dot);
  rest = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
  while (!part.empty() && std::isspace(static_cast<unsigned char>(part.front()))) part.remove_prefix(1);
  while (!part.empty() && std::isspace(static_cast<unsigned char>(part.back()))) part.remove_suffix(1);
  long long value = 0;
  auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
  return part.empty() || ec != std::errc() || ptr != part.data() + part.size() ? 0 : value;
}

}  // namespace

int compare_versions(std::string_view a, std::string_view b) {
  // Component by component; one that has run out counts as zeros ("12.1" == "12.1.0").
  bool a_left = true, b_left = true;
  while (a_left || b_left) {
    const long long x = a_left ? next_version_part(a) : 0;
    const long long y = b_left ? next_version_part(b) : 0;
    if (x != y) return x < y ? -1 : 1;
    a_left = a_left && !a.empty();
    b_left = b_left && !b.empty();
  }
  return 0;
}

std::optional<std::string> find_assignment(std::string_view text, std::string_view key) {
  for (const auto& raw : lines(text)) {
    std::string line = trim(raw);
    if (!starts_with(line, key)) continue;
    std::string rest = trim(std::string_view(line).substr(key.size()));
    // Allow a type annotation: `cuda: Optional[str] = '12.1'`.
    if (!rest.empty() && rest[0] == ':') {
      auto eq = rest.find('=');
      if (eq == std::string::npos) continue;
      rest = rest.substr(eq);
    }
    if (rest.empty() || rest[0] != '=') continue;
    std::string value = trim(std::string_view(rest).substr(1));
    if (value.size() >= 2 && (value[0] == '\'' || value[0] == '"') && value.back() == value[0])
      value = value.substr(1, value.size() - 2);
    return value;
  }
  return std::nullopt;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

std::string human_bytes(unsigned long long bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

std::string first_line(std::string_view s) { return std::string(s.substr(0, s.find('\n'))); }

std::optional<unsigned> bidi_control_at(std::string_view s, size_t i) {
  if (i + 2 >= s.size() || static_cast<unsigned char>(s[i]) != 0xE2) return std::nullopt;
  auto b1 = static_cast<unsigned char>(s[i + 1]), b2 = static_cast<unsigned char>(s[i + 2]);
  unsigned cp = 0x2000u | ((b1 & 0x3Fu) << 6) | (b2 & 0x3Fu);
  if ((b1 >> 6) != 2 || (b2 >> 6) != 2) return std::nullopt;
  // U+200E/F marks, U+202A..E embeddings and overrides, U+2066..9 isolates.
  if (cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069)) return cp;
  return std::nullopt;
}

std::string printable(std::string_view s, size_t max_bytes) {
  // Printable ASCII (nearly all the doctor prints): as it is, without the byte-by-byte walk.
  size_t plain = 0;
  const size_t limit = std::min(s.size(), max_bytes);
  while (plain < limit && static_cast<unsigned char>(s[plain]) >= 0x20 && static_cast<unsigned char>(s[plain]) < 0x7f) ++plain;
  if (plain == s.size()) return std::string(s);
  std::string out(s.substr(0, plain));
  auto hex = [&](unsigned char c) {
    static const char digits[] = "0123456789abcdef";
    out += "\\x";
    out += digits[c >> 4];
    out += digits[c & 15];
  };
  size_t i = plain;
  while (i < s.size()) {
    if (out.size() >= max_bytes) {
      out += "…";
      break;
    }
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) {
      hex(c);
      ++i;
      continue;
    }
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = n > 0 && i + n <= s.size();
    for (size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(s[i + k]) >> 6) == 0x2;
    // C1 controls (U+0080..U+009F) act on some terminals like ESC sequences.
    if (ok && n == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0) ok = false;
    // Bidirectional controls reorder what a terminal shows after them ("gpu\u202Egnp.exe").
    if (ok && n == 3 && bidi_control_at(s, i)) ok = false;
    if (!ok) {
      hex(c);
      ++i;
      continue;
    }
    out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

std::string printable_lines(std::string_view s, size_t max_bytes_per_line) {
  std::string out;
  auto parts = split(s, '\n', true);
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? "\n" : "") + printable(parts[i], max_bytes_per_line);
  return out;
}

std::string shell_quote(std::string_view arg) {
  bool plain = !arg.empty();
  for (char c : arg)
    plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_@%+=:,./-").find(c) != std::string_view::npos);
  if (plain) return std::string(arg);
  std::string out = "'";
  for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string escape_xml(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + shell_quote(a);
  return out;
}

std::string utc_now(const char* format) {
  // The calendar from <chrono> (no gmtime_r, which Windows lacks; no gmtime's shared buffer).
  using namespace std::chrono;
  auto now = floor<seconds>(system_clock::now());
  auto day = floor<days>(now);
  year_month_day date{day};
  hh_mm_ss time{now - day};
  std::tm utc{};
  utc.tm_year = static_cast<int>(date.year()) - 1900;
  utc.tm_mon = static_cast<int>(static_cast<unsigned>(date.month())) - 1;
  utc.tm_mday = static_cast<int>(static_cast<unsigned>(date.day()));
  utc.tm_hour = static_cast<int>(time.hours().count());
  utc.tm_min = static_cast<int>(time.minutes().count());
  utc.tm_sec = static_cast<int>(time.seconds().count());
  utc.tm_wday = static_cast<int>(weekday{day}.c_encoding());
  utc.tm_yday = static_cast<int>((day - sys_days{date.year() / January / 1}).count());
  char text[64] = "";
  std::strftime(text, sizeof text, format, &utc);
  return text;
}

std::optional<std::string> dlready_cache_dir(const std::optional<std::string>& xdg_cache_home,
                                             const std::optional<std::string>& home) {
  if (xdg_cache_home && starts_with(*xdg_cache_home, "/")) return *xdg_cache_home + "/dlready";
  if (home && starts_with(*home, "/")) return *home + "/.cache/dlready";
  return std::nullopt;
}

std::optional<std::string> dlready_cache_dir(const std::map<std::string, std::string>& env) {
  auto get = [&](const char* name) -> std::optional<std::string> {
    auto it = env.find(name);
    return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  return dlready_cache_dir(get("XDG_CACHE_HOME"), get("HOME"));
}

}  // namespace dlready
