#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/posix_fs.hpp"

namespace dlready {

Status write_file_atomically(const std::string& path, std::string_view content) {
  // Renaming over a device node, a FIFO or a directory would replace it with a regular file (as
  // root, /dev/full would become a file): refuse any target that exists and is not a regular file.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    return Status::failure(path + ": " + file_kind(st.st_mode) + "; nothing written (give the path of a file)");
  // A temp name of its own (mkstemp), so two processes saving the same file at once (two doctors
  // updating the scan cache) each rename a whole file of their own: the last one wins, none is torn.
  std::string tmp = path + ".tmp-XXXXXX";
  auto fail = [&](const char* step) {
    std::string msg = path + ": " + step + " failed: " + std::strerror(errno);
    ::unlink(tmp.c_str());
    return Status::failure(msg);
  };
  int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) return Status::failure(path + ": cannot create " + tmp + ": " + std::strerror(errno));
  if (::fchmod(fd, 0644) != 0) {  // mkstemp's 0600 would make a snapshot or model unreadable to others
    ::close(fd);
    return fail("chmod");
  }
  const char* p = content.data();
  size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      return fail("write");
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    return fail("fsync");
  }
  if (::close(fd) != 0) return fail("close");
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail("rename");
  auto slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);  // make the rename itself durable
    ::close(dfd);
  }
  return {};
}

}  // namespace dlready
