// Writes a file so that a crash leaves either the old or the new content, never a torn one:
// temp file in the same directory, fsync, rename over the target, fsync the directory.
#pragma once
#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "core/status.hpp"

namespace dlready {

// Whether `path` cannot be an output file at all (it is a folder, a device or a FIFO, or its folder
// does not exist): a failed write there is the user's argument, exit 2, not a failure of the work.
// Inline: std::filesystem answers it alike on every platform.
[[nodiscard]] inline bool unusable_output_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (fs::exists(st) && !fs::is_regular_file(st)) return true;
  const fs::path parent = fs::path(path).parent_path();
  return !parent.empty() && !fs::is_directory(parent, ec);
}

// Fails with a message naming the path and the failing step. `mode` is the new file's mode.
Status write_file_atomically(const std::string& path, std::string_view content, mode_t mode = 0644);

// The same, for content that arrives in pieces (an encrypted file written chunk by chunk, so the
// whole ciphertext is never held in memory): append, then commit. Until commit() succeeds the
// target is untouched; a writer destroyed without commit removes its temp file.
class AtomicFileWriter {
 public:
  struct Opened;
  static Opened open(const std::string& path, mode_t mode = 0644);
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  ~AtomicFileWriter();
  Status append(std::string_view bytes);
  Status commit();  // fsync, rename over the target, fsync the directory

 private:
  AtomicFileWriter(std::string path, std::string tmp, int fd) : path_(std::move(path)), tmp_(std::move(tmp)), fd_(fd) {}
  Status fail(const char* step);
  std::string path_, tmp_;
  int fd_ = -1;
  bool done_ = false;
};

struct AtomicFileWriter::Opened {
  std::unique_ptr<AtomicFileWriter> writer;
  std::string error;
};

}  // namespace dlready
