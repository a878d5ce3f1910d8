#include "os/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace dlready {

std::optional<MappedFile> map_open_file(int fd, uint64_t offset, size_t len, bool populate) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) return std::nullopt;
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (offset >= size || len == 0) return std::nullopt;
  const size_t want = static_cast<size_t>(std::min<uint64_t>(len, size - offset));
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t base = offset - offset % page;  // mmap takes whole pages
  const size_t span = static_cast<size_t>(offset - base) + want;
  int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
  if (populate) flags |= MAP_POPULATE;  // every page table entry at once (Linux); elsewhere faulted as read
#endif
  void* at = ::mmap(nullptr, span, PROT_READ, flags, fd, static_cast<off_t>(base));
  if (at == MAP_FAILED) return std::nullopt;
  MappedFile m;
  m.bytes = static_cast<const uint8_t*>(at) + (offset - base);
  m.size = want;
  m.keeper = std::shared_ptr<const void>(at, [span](const void* p) { ::munmap(const_cast<void*>(p), span); });
  return m;
}

std::optional<MappedFile> map_regular_file(const std::string& path, uint64_t max_bytes) {
  // A device node or FIFO is not even opened (opening some has effects); one swapped in after
  // this look is opened non-blocking and refused by fstat, never waited on.
  struct stat look {};
  if (::lstat(path.c_str(), &look) != 0 || !S_ISREG(look.st_mode) || look.st_size <= 0 ||
      static_cast<uint64_t>(look.st_size) > max_bytes)
    return std::nullopt;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  const bool fits = ::fstat(fd, &st) == 0 && static_cast<uint64_t>(st.st_size) <= max_bytes;  // not grown since
  auto m = fits ? map_open_file(fd, 0, static_cast<size_t>(st.st_size), /*populate=*/true) : std::nullopt;
  ::close(fd);  // the mapping keeps the file
  return m;
}

}  // namespace dlready
