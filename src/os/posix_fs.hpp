// Directory helpers on plain POSIX calls. Code that is linked with LibTorch avoids
// std::filesystem: libtorch.so exports its own copies of some std::filesystem symbols, and the
// dynamic linker may bind ours to them (remove_all crashed that way in the test suite).
#pragma once
#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "core/status.hpp"

namespace dlready {

bool path_exists(const std::string& path);
bool is_directory(const std::string& path);
// A regular file (a symlink followed): what a command that reads a file needs; anything else
// (missing, a folder, a FIFO, a device) is an unusable path, exit 2 (ExitCode::usage).
bool is_regular_file(const std::string& path);
// Sorted entry names, without "." and ".."; empty when unreadable.
std::vector<std::string> list_directory(const std::string& dir);
// mkdir -p; fails with a message naming the directory that could not be created.
Status make_directories(const std::string& path);
// What a file of this st_mode is, for messages: "a directory", "a FIFO", "a character device", ...
const char* file_kind(mode_t mode);
// The running program's own file (/proc/self/exe); "" when it cannot be told.
std::string own_executable();
// The working folder (getcwd); "" when it cannot be told (removed, too long).
std::string current_directory();
// rm -rf (does not follow symlinks).
void remove_tree(const std::string& path);
// Writes all of `data` to `fd`, again after EINTR and short writes; false when the descriptor
// fails (errno says why: EPIPE for a closed pipe). Async-signal-safe: write(2) only.
bool write_fully(int fd, std::string_view data);

}  // namespace dlready
