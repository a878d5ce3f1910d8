#include "os/atomic_file.hpp"

#include <filesystem>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "os/posix_fs.hpp"

namespace dlready {

AtomicFileWriter::Opened AtomicFileWriter::open(const std::string& path, mode_t mode) {
  // Renaming over a device node, a FIFO or a directory would replace it with a regular file (as
  // root, /dev/full would become a file): refuse any target that exists and is not a regular file.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    return {nullptr, path + ": " + file_kind(st.st_mode) + "; nothing written (give the path of a file)"};
  // A temp name of its own (mkstemp), so two processes saving the same file at once (two doctors
  // updating the scan cache) each rename a whole file of their own: the last one wins, none is torn.
  std::string tmp = path + ".tmp-XXXXXX";
  int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) return {nullptr, path + ": cannot create " + tmp + ": " + std::strerror(errno)};
  // mkstemp's 0600 would make a snapshot or model unreadable to others; a key file asks for 0600.
  if (::fchmod(fd, mode) != 0) {
    std::string msg = path + ": chmod failed: " + std::strerror(errno);
    ::close(fd);
    ::unlink(tmp.c_str());
    return {nullptr, msg};
  }
  return {std::unique_ptr<AtomicFileWriter>(new AtomicFileWriter(path, tmp, fd)), ""};
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!done_) ::unlink(tmp_.c_str());
}

Status AtomicFileWriter::fail(const char* step) {
  std::string msg = path_ + ": " + step + " failed: " + std::strerror(errno);
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(tmp_.c_str());
  done_ = true;  // nothing left to remove
  return Status::failure(msg);
}

Status AtomicFileWriter::append(std::string_view bytes) {
  if (fd_ < 0) return Status::failure(path_ + ": write after a failure or commit");
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail("write");
    p += n;
    left -= static_cast<size_t>(n);
  }
  return {};
}

Status AtomicFileWriter::commit() {
  if (fd_ < 0) return Status::failure(path_ + ": commit after a failure");
  if (::fsync(fd_) != 0) return fail("fsync");
  int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) return fail("close");
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) return fail("rename");
  done_ = true;
  auto slash = path_.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path_.substr(0, slash);
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);  // make the rename itself durable
    ::close(dfd);
  }
  return {};
}

Status write_file_atomically(const std::string& path, std::string_view content, mode_t mode) {
  auto opened = AtomicFileWriter::open(path, mode);
  if (!opened.writer) return Status::failure(opened.error);
  if (auto st = opened.writer->append(content); !st) return st;
  return opened.writer->commit();
}

}  // namespace dlready
