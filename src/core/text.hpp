// Small string helpers shared by the parsers.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dlready {

std::string trim(std::string_view s);
std::vector<std::string> split(std::string_view s, char sep, bool keep_empty = false);
std::vector<std::string> lines(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);
bool ends_with(std::string_view s, std::string_view suffix);
bool contains(std::string_view s, std::string_view needle);
std::string to_lower(std::string_view s);
std::optional<long long> parse_int(std::string_view s, int base = 10);
// Dotted numeric version comparison ("580.65.06" vs "525.60.13"); missing parts count as 0.
// Non-numeric parts compare as 0.
int compare_versions(std::string_view a, std::string_view b);
// "KEY=VALUE" or "KEY = 'VALUE'" style assignment lookup in a text of lines.
std::optional<std::string> find_assignment(std::string_view text, std::string_view key);
std::string join(const std::vector<std::string>& parts, std::string_view sep);
std::string human_bytes(unsigned long long bytes);
// Text that came from outside (a peer launcher, a snapshot, a file under --root) made safe to
// print on a terminal: control characters (ESC, CR, NUL, newlines...) and bytes that are not UTF-8
// become \xNN, so no sequence can move the cursor or forge a line; cut after `max_bytes` with "…".
std::string printable(std::string_view s, size_t max_bytes = 4096);
// The bidirectional control (U+200E/F, U+202A..E, U+2066..9) whose UTF-8 starts at s[i], if one does.
std::optional<unsigned> bidi_control_at(std::string_view s, size_t i);
// Now, in UTC, as strftime writes `format` ("2026-12-05T03:25:00Z" by default).
std::string utc_now(const char* format = "%Y-%m-%dT%H:%M:%SZ");
// dlready's cache folder: <XDG_CACHE_HOME>/dlready, else <HOME>/.cache/dlready ("" when neither is
// an absolute path; a relative XDG_CACHE_HOME is invalid and is ignored, as XDG says).
[[nodiscard]] std::optional<std::string> dlready_cache_dir(const std::optional<std::string>& xdg_cache_home,
                                                           const std::optional<std::string>& home);
// The same from an environment (name -> value).
[[nodiscard]] std::optional<std::string> dlready_cache_dir(const std::map<std::string, std::string>& env);
// The same for a text of several lines: each line made printable (and bounded), the line breaks kept.
std::string printable_lines(std::string_view s, size_t max_bytes_per_line = 4096);
// One argument as a POSIX shell reads it back unchanged: as it is when it holds only characters
// no shell treats specially, else in single quotes ('it'\''s').
std::string shell_quote(std::string_view arg);
// Text for an XML/SVG element or attribute: & < > " escaped.
std::string escape_xml(std::string_view s);
// A command line of quoted arguments, to print for a user to copy.
std::string shell_join(const std::vector<std::string>& argv);
// The text up to the first newline (LibTorch appends a C++ backtrace to its error messages).
std::string first_line(std::string_view s);

}  // namespace dlready
