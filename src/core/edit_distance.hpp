// Levenshtein distance: how far a mistyped word is from what was meant (the allocator-setting
// keys, the command line's commands and options).
#pragma once
#include <cstddef>
#include <string_view>

namespace dlready {

[[nodiscard]] size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace dlready
