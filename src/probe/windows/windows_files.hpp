// Files on this Windows machine as the probes read them (the live WindowsApi's, live_windows.cpp):
// one reader for all (a size limit, disk files only — no pipe, console or device), the existence
// checks, a folder's names.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/byte_reader.hpp"

namespace dlready {

bool path_exists(const std::string& path);
bool is_file(const std::string& path);  // exists and is not a folder
// The whole file when it is a disk file of at most `limit` bytes; nullopt otherwise.
std::optional<std::string> read_file(const std::string& path, size_t limit);
std::vector<std::string> list_dir(const std::string& dir);  // sorted, without . and ..
// A disk file read by ranges (the PE reader's: a DLL of a gigabyte costs a few small reads); the
// file stays open while a copy of the reader lives. Every read answers nullopt when it cannot open.
ByteReader file_ranges(const std::string& path);
// A folder on another machine (\\server\share, or a drive letter mapped to one): reading it can
// wait for the network's time-out (tens of seconds for a server that is gone), so the probes that
// walk PATH leave such folders unread and say so.
bool on_network(const std::string& path);
// C:\Windows\System32 and C:\Windows as this Windows has them.
std::string system_directory();
std::string windows_directory();

}  // namespace dlready
