// Writes a file so that a crash leaves either the old or the new content, never a torn one:
// temp file in the same directory, fsync, rename over the target, fsync the directory.
#pragma once
#include <string>
#include <string_view>

#include "core/status.hpp"

namespace dlready {

// Fails with a message naming the path and the failing step.
Status write_file_atomically(const std::string& path, std::string_view content);

}  // namespace dlready
