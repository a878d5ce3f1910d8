#include "os/root_fs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <vector>

#include "facts/access_log.hpp"
#include "os/mapped_file.hpp"

namespace dlready {

namespace {

// "<mode octal>\t<uid>\t<gid>\t<size>\t<path>" lines (capture/capture_tree.cpp writes them).
std::map<std::string, FileStat> parse_stat_table(const std::string& text) {
  std::map<std::string, FileStat> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    std::vector<std::string> f;
    size_t a = 0;
    for (int i = 0; i < 4; ++i) {
      size_t tab = line.find('\t', a);
      if (tab == std::string::npos) break;
      f.push_back(line.substr(a, tab - a));
      a = tab + 1;
    }
    if (f.size() != 4 || a >= line.size() || line[a] != '/') continue;
    char* stop = nullptr;
    FileStat st;
    st.mode = static_cast<mode_t>(std::strtoul(f[0].c_str(), &stop, 8));
    if (*stop) continue;
    st.uid = static_cast<uid_t>(std::strtoul(f[1].c_str(), nullptr, 10));
    st.gid = static_cast<gid_t>(std::strtoul(f[2].c_str(), nullptr, 10));
    st.size = std::strtoull(f[3].c_str(), nullptr, 10);
    st.is_dir = S_ISDIR(st.mode);
    st.is_char_device = S_ISCHR(st.mode);
    st.is_regular = S_ISREG(st.mode);
    out[line.substr(a)] = st;
  }
  return out;
}

// One answer per place, what a replay gives every read: the first one (a /proc file read twice
// changed in between), or a longer read of the same bytes (a header read first, then the file).
void keep_first_answer(std::string& slot, const std::string& read) {
  if (slot.empty() || (read.size() > slot.size() && read.compare(0, slot.size(), slot) == 0)) slot = read;
}

}  // namespace

RootFs::RootFs(std::string root) : root_(std::move(root)) {
  if (root_.empty()) root_ = "/";
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  if (is_host_root()) return;
  // A capture's own table; a plain fixture root has none (one failed stat).
  std::string table = path_join(path_join(root_, kCaptureDir), "stat.tsv");
  struct stat st {};
  if (::lstat(table.c_str(), &st) == 0 && S_ISREG(st.st_mode))
    if (auto text = read(std::string(kCaptureDir) + "/stat.tsv", 16 << 20)) replayed_stats_ = parse_stat_table(*text);
}

void RootFs::note(const std::string& path) const {
  if (log_) log_->paths.insert(path);
}

std::string RootFs::host(const std::string& path) const {
  if (is_host_root()) return path;
  return path_join(root_, path);
}

// The host path to open for `path`: under another root, its links are resolved inside that root
// first (as a chroot would), so an absolute link never reaches the host's own files; "" when the
// path does not resolve there.
std::string RootFs::opened(const std::string& path) const {
  if (is_host_root()) return path;
  auto resolved = resolve(path);
  return resolved ? host(*resolved) : std::string();
}

// The host path of `path` with every directory above it resolved inside the root and the last
// component left as it is (what lstat and readlink ask about).
std::string RootFs::unfollowed(const std::string& path) const {
  if (is_host_root()) return path;
  std::string normal = path_normalize(path);
  if (normal == "/") return root_;
  auto parent = resolve(path_dirname(normal));
  return parent ? path_join(host(*parent), path_basename(normal)) : std::string();
}

// A file descriptor for reading `path`, or -1. Under another root only a regular file is opened: a
// device node, FIFO or socket there is a stranger's (an archive extracted as root keeps them), and
// opening one can block, rewind a tape or read without end.
int RootFs::open_for_reading(const std::string& path) const {
  std::string file = opened(path);
  if (file.empty()) return -1;
  if (is_host_root()) return ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  struct stat st {};
  if (::lstat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return -1;
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
  if (fd >= 0 && (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {  // swapped since the lstat
    ::close(fd);
    return -1;
  }
  return fd;
}

namespace {

// Up to `max_bytes` from `fd`'s position on, each read twice the last (8 KB first: most files here
// are small, and /proc's and /sys's report no true size), into a buffer nothing fills first and
// appended: a string sized up front was zero-filled 8 KB a read (1.2 M of a doctor run's 22 M
// instructions), and 8 KB steps were 93 reads for dpkg's 750 KB status file.
std::optional<std::string> read_growing(int fd, size_t max_bytes) {
  std::string out;
  char first[8192];
  std::unique_ptr<char[]> later;
  size_t step = sizeof first;
  while (out.size() < max_bytes) {
    const size_t want = std::min(step, max_bytes - out.size());
    char* into = first;
    if (want > sizeof first) {
      later.reset(new char[want]);  // uninitialised on purpose: read() fills what it returns
      into = later.get();
    }
    ssize_t n = ::read(fd, into, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    out.append(into, static_cast<size_t>(n));
    step = std::min<size_t>(step * 2, size_t{1} << 20);
  }
  return out;
}

}  // namespace

std::optional<std::string> RootFs::read(const std::string& path, size_t max_bytes) const {
  int fd = open_for_reading(path);
  if (fd < 0) return std::nullopt;
  auto out = read_growing(fd, max_bytes);
  ::close(fd);
  if (out && log_) {
    note(path);
    keep_first_answer(log_->bytes[path][0], *out);
  }
  return out;
}

namespace {

// Up to `len` bytes at `offset` (short at the end of the file).
std::string read_fully_at(int fd, uint64_t offset, size_t len) {
  std::string out(len, '\0');
  size_t got = 0;
  while (got < len) {
    ssize_t n = ::pread(fd, out.data() + got, len - got, static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  out.resize(got);
  return out;
}

}  // namespace

// One read through a reader of its own: the open, the read and the record are reader()'s.
std::optional<std::string> RootFs::read_at(const std::string& path, uint64_t offset,
                                           size_t len) const {
  return reader(path)(offset, len);
}

ByteReader RootFs::reader(const std::string& path) const {
  int fd = open_for_reading(path);
  if (fd < 0) return [](uint64_t, size_t) { return std::optional<std::string>(); };
  std::shared_ptr<const int> file(new int(fd), [](const int* p) {
    ::close(*p);
    delete p;
  });
  return [this, path, file](uint64_t offset, size_t len) -> std::optional<std::string> {
    std::string out = read_fully_at(*file, offset, len);
    if (log_) {
      note(path);
      keep_first_answer(log_->bytes[path][offset], out);
    }
    return out;
  };
}

std::optional<FileView> RootFs::view_at(const std::string& path, uint64_t offset, size_t len) const {
  int fd = open_for_reading(path);
  if (fd < 0) return std::nullopt;
  std::optional<FileView> mapped;
  if (auto m = map_open_file(fd, offset, len, /*populate=*/false))
    mapped = FileView{std::string_view(reinterpret_cast<const char*>(m->bytes), m->size), m->keeper};
  if (!mapped) {  // /proc and /sys report no size: read as read() and read_at read them
    auto text = offset == 0 ? read_growing(fd, len) : std::optional<std::string>(read_fully_at(fd, offset, len));
    if (!text) {
      ::close(fd);
      return std::nullopt;
    }
    auto owned = std::make_shared<std::string>(std::move(*text));
    mapped = FileView{std::string_view(*owned), owned};
  }
  ::close(fd);
  if (log_) {
    note(path);
    keep_first_answer(log_->bytes[path][offset], std::string(mapped->text));
  }
  return mapped;
}

std::optional<std::string> RootFs::read_line(const std::string& path) const {
  auto text = read(path, 64 * 1024);
  if (!text) return std::nullopt;
  auto nl = text->find('\n');
  std::string line = text->substr(0, nl);
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
    line.pop_back();
  size_t start = line.find_first_not_of(" \t");
  return start == std::string::npos ? std::string() : line.substr(start);
}

bool RootFs::exists(const std::string& path) const {
  note(path);
  struct stat st {};
  std::string file = unfollowed(path);
  return !file.empty() && ::lstat(file.c_str(), &st) == 0;
}

bool RootFs::can_list(const std::string& path) const {
  return is_dir(path) && ::access(opened(path).c_str(), R_OK | X_OK) == 0;
}

bool RootFs::is_dir(const std::string& path) const {
  note(path);
  struct stat st {};
  return ::stat(opened(path).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::optional<FileStat> RootFs::stat(const std::string& path) const {
  auto resolved = resolve(path);
  if (!resolved) return std::nullopt;
  if (auto it = replayed_stats_.find(*resolved); it != replayed_stats_.end()) return it->second;
  struct stat st {};
  if (::stat(host(*resolved).c_str(), &st) != 0) return std::nullopt;
  if (log_) log_->stats[*resolved] = RecordedStat{st.st_mode, st.st_uid, st.st_gid, static_cast<uint64_t>(st.st_size)};
  FileStat fs;
  fs.mode = st.st_mode;
  fs.uid = st.st_uid;
  fs.gid = st.st_gid;
  fs.is_dir = S_ISDIR(st.st_mode);
  fs.is_char_device = S_ISCHR(st.st_mode);
  fs.is_regular = S_ISREG(st.st_mode);
  fs.size = static_cast<uint64_t>(st.st_size);
  return fs;
}

std::optional<std::string> RootFs::readlink(const std::string& path) const {
  note(path);
  char buf[4096];
  std::string file = unfollowed(path);
  ssize_t n = file.empty() ? -1 : ::readlink(file.c_str(), buf, sizeof buf - 1);
  if (n <= 0) return std::nullopt;
  return std::string(buf, static_cast<size_t>(n));
}

namespace {

// The names in a host folder but . and .., sorted; nullopt when it cannot be opened.
std::optional<std::vector<std::string>> sorted_names(const std::string& folder) {
  DIR* d = ::opendir(folder.c_str());
  if (!d) return std::nullopt;
  std::vector<std::string> names;
  while (auto* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

std::vector<std::string> RootFs::list(const std::string& dir) const {
  std::optional<std::vector<std::string>> listed;
  if (listings_) {
    std::lock_guard<std::mutex> held(listings_->lock);
    if (auto it = listings_->by_folder.find(dir); it != listings_->by_folder.end()) listed = it->second;
  }
  if (!listed) {
    listed = sorted_names(opened(dir));
    if (!listed) return {};
    if (listings_) {
      std::lock_guard<std::mutex> held(listings_->lock);
      listings_->by_folder.emplace(dir, *listed);
    }
  }
  std::vector<std::string> names = std::move(*listed);
  if (log_) {
    note(dir);
    log_->listings.emplace(dir, names);
  }
  return names;
}

std::optional<std::string> RootFs::resolve(const std::string& path) const {
  note(path);
  // Walk component by component so that links in the middle of the path are followed too.
  std::string done = "/";
  std::string todo = path_normalize(path);
  int links = 0;
  size_t pos = 1;
  while (pos <= todo.size()) {
    size_t next = todo.find('/', pos);
    if (next == std::string::npos) next = todo.size();
    std::string part = todo.substr(pos, next - pos);
    std::string rest = next < todo.size() ? todo.substr(next) : "";
    pos = next + 1;
    if (part.empty()) continue;
    std::string candidate = path_join(done, part);
    {
      std::lock_guard<std::mutex> held(folders_->lock);
      if (folders_->paths.count(candidate)) {
        done = std::move(candidate);
        continue;
      }
    }
    struct stat st {};
    if (::lstat(host(candidate).c_str(), &st) != 0) return std::nullopt;
    if (S_ISDIR(st.st_mode)) {
      std::lock_guard<std::mutex> held(folders_->lock);
      folders_->paths.insert(candidate);
    }
    if (S_ISLNK(st.st_mode)) {
      if (++links > 40) return std::nullopt;
      // `done` is resolved already: the link itself is read where it lies.
      note(candidate);
      char buf[4096];
      ssize_t n = ::readlink(host(candidate).c_str(), buf, sizeof buf - 1);
      if (n <= 0) return std::nullopt;
      std::string target(buf, static_cast<size_t>(n));
      std::string base = target.front() == '/' ? target : path_join(done, target);
      todo = path_normalize(base + rest);
      done = "/";
      pos = 1;
      continue;
    }
    done = candidate;
  }
  return done;
}

}  // namespace dlready
