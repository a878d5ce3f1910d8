// JSON as text, for every report and file dlready writes. The facts describe a machine, and a
// machine holds bytes that are not UTF-8 (an environment variable, a /proc file, a package name):
// such a byte must never abort a report, so it is written as U+FFFD instead of throwing.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace dlready {

// indent < 0: one line.
std::string json_text(const nlohmann::json& j, int indent = -1);

bool is_valid_utf8(std::string_view s);

// JSON that came from outside (a file, a peer, a pipe): parsed only when its arrays and objects
// nest no deeper than `max_depth` (a deeper document would exhaust the stack of every recursive
// walk over it — copying, printing, destroying) and no object repeats a key (a reader that takes
// the first copy and one that takes the last would see two different documents). Otherwise, or
// when it is not JSON, a discarded value with `error` saying which.
struct JsonLimits {
  size_t max_depth = 64;
  bool refuse_duplicate_keys = true;
};
nlohmann::json parse_json_bounded(std::string_view text, std::string* error = nullptr, JsonLimits limits = {});

// The deepest nesting of arrays and objects in `text` (strings skipped), counting up to `stop`.
size_t json_nesting_depth(std::string_view text, size_t stop);

}  // namespace dlready
