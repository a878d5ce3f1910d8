#include "os/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dlready {

std::optional<MappedFile> map_regular_file(const std::string& path, uint64_t max_bytes) {
  // A device node or FIFO is not even opened (opening some has effects); one swapped in after
  // this look is opened non-blocking and refused by fstat, never waited on.
  struct stat look {};
  if (::lstat(path.c_str(), &look) != 0 || !S_ISREG(look.st_mode)) return std::nullopt;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  const bool fits = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
                    static_cast<uint64_t>(st.st_size) <= max_bytes;
  void* at = MAP_FAILED;
  const size_t size = fits ? static_cast<size_t>(st.st_size) : 0;
  int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
  flags |= MAP_POPULATE;  // every page table entry at once (Linux); elsewhere faulted as read
#endif
  if (fits) at = ::mmap(nullptr, size, PROT_READ, flags, fd, 0);
  ::close(fd);  // the mapping keeps the file
  if (at == MAP_FAILED) return std::nullopt;
  MappedFile m;
  m.bytes = static_cast<const uint8_t*>(at);
  m.size = size;
  m.keeper = std::shared_ptr<const void>(at, [size](const void* p) { ::munmap(const_cast<void*>(p), size); });
  return m;
}

}  // namespace dlready
