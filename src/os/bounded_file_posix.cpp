#include "os/bounded_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "os/posix_fs.hpp"

namespace dlready {

FileBytes read_regular_file(const std::string& path, uint64_t max_bytes, const std::string& kind) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return {std::nullopt, path + ": cannot open (" + std::strerror(errno) + ")"};
  struct stat st {};
  bool stated = ::fstat(fd, &st) == 0;
  if (!stated || !S_ISREG(st.st_mode)) {
    std::string what = stated ? file_kind(st.st_mode) : "cannot stat";
    ::close(fd);
    return {std::nullopt, path + ": " + what + ", not " + kind + " (a regular file is needed)"};
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    return {std::nullopt, path + ": " + std::to_string(st.st_size) + " bytes, more than " + kind + " can be (" +
                              std::to_string(max_bytes) + ")"};
  }
  std::string out;
  out.resize(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::read(fd, out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      std::string why = std::strerror(errno);
      ::close(fd);
      return {std::nullopt, path + ": read failed (" + why + ")"};
    }
    if (n == 0) break;  // shrank while we read: what is there is what we have
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  out.resize(got);
  return {std::move(out), ""};
}

}  // namespace dlready
