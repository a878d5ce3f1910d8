// A regular file's bytes mapped read-only into memory instead of read into a buffer: a 47 MB
// dataset copy then costs one populating call (~5 ms here) instead of 11,500 page faults on a fresh
// buffer and a copy (~40 ms). The pages are the page cache's own: writing to them faults
// (PROT_READ), and a file truncated by someone else while it is mapped makes a read of its lost
// tail a SIGBUS — so only files this program writes whole and replaces by rename are mapped, and
// the fatal-signal line names such a file as cut short (os/fatal_signal_linux.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace dlready {

struct MappedFile {
  const uint8_t* bytes = nullptr;
  size_t size = 0;
  std::shared_ptr<const void> keeper;  // the mapping lives while any copy of this does
};

// [offset, offset + len) of the regular file open on `fd`, cut at its end, mapped read-only (from
// the page below `offset`; `populate`: every page at once where the system can); nullopt when `fd`
// is no regular file with bytes there, or mmap fails. `fd` may be closed afterwards.
[[nodiscard]] std::optional<MappedFile> map_open_file(int fd, uint64_t offset, size_t len, bool populate);

// `path` when it is a regular file (not followed through a final symlink) of 1 to `max_bytes`
// bytes, mapped whole; nullopt otherwise, or when it cannot be opened or mapped.
[[nodiscard]] std::optional<MappedFile> map_regular_file(const std::string& path, uint64_t max_bytes);

}  // namespace dlready
