// Files as the Windows probes read them: one reader for all (a size limit, disk files only — no
// pipe, console or device), the existence checks, a folder's names, and the same as a FileSource
// for the readers shared with Linux (core/python_files.hpp).
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/python_files.hpp"

namespace dlready {

bool path_exists(const std::string& path);
bool is_file(const std::string& path);  // exists and is not a folder
// The whole file when it is a disk file of at most `limit` bytes; nullopt otherwise.
std::optional<std::string> read_file(const std::string& path, size_t limit);
std::vector<std::string> list_dir(const std::string& dir);  // sorted, without . and ..
FileSource windows_files();

}  // namespace dlready
