// Reading a whole file that a user names (a snapshot, a dataset file, a checkpoint): it must be a
// regular file once links are followed, and no larger than what a file of its kind can be, both
// checked before a byte is read. A FIFO never blocks (opened non-blocking), /dev/zero is refused
// instead of read forever.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace dlready {

struct FileBytes {
  std::optional<std::string> bytes;
  std::string error;  // "<path>: <what is wrong>"
};

// `kind` names the file in messages ("a snapshot", "an IDX file").
FileBytes read_regular_file(const std::string& path, uint64_t max_bytes, const std::string& kind);

}  // namespace dlready
