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

}  // namespace dlready
