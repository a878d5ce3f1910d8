#include "capture/capture_tree.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "os/atomic_file.hpp"
#include "core/json_text.hpp"
#include "os/posix_fs.hpp"
#include "os/root_fs.hpp"
#include "core/text.hpp"

namespace dlready {

namespace {

constexpr int kMaxLinks = 40;  // as the kernel follows them

class TreeWriter {
 public:
  TreeWriter(const std::string& source_root, const std::string& out, const std::optional<Redactor>& redactor,
             CaptureTreeStats& stats)
      : source_(source_root), out_(out), redactor_(redactor), stats_(stats) {}

  std::string redacted(const std::string& text) const { return redactor_ ? redactor_->apply(text) : text; }
  std::string in_tree(const std::string& path) const { return path_join(out_, redacted(path)); }
  const Status& status() const { return status_; }

  // Makes the folders and links of `path` as they are on the machine; the path (inside the root) it
  // resolves to, when it exists.
  std::optional<std::string> materialize(const std::string& path, int depth = 0) {
    std::string done = "/", todo = path_normalize(path);
    size_t pos = 1;
    while (pos <= todo.size()) {
      size_t next = todo.find('/', pos);
      if (next == std::string::npos) next = todo.size();
      std::string part = todo.substr(pos, next - pos), rest = next < todo.size() ? todo.substr(next) : "";
      pos = next + 1;
      if (part.empty()) continue;
      std::string candidate = path_join(done, part);
      struct stat st {};
      if (::lstat(source_.host(candidate).c_str(), &st) != 0) return std::nullopt;
      if (S_ISLNK(st.st_mode)) {
        auto target = source_.readlink(candidate);
        if (!target || target->empty() || depth >= kMaxLinks) return std::nullopt;
        make_link(candidate, *target);
        std::string base = target->front() == '/' ? *target : path_join(done, *target);
        return materialize(base + rest, depth + 1);
      }
      if (S_ISDIR(st.st_mode)) {
        make_folder(candidate);
        done = candidate;
        continue;
      }
      if (!rest.empty()) return std::nullopt;  // a file in the middle of a path: nothing below it
      make_file(candidate);                    // a device node or FIFO too: stat.tsv says what it is
      return candidate;
    }
    return done;
  }

  // The bytes the doctor read: a text file read whole is written redacted; anything else (an ELF
  // header) goes at its offsets in a sparse file of the real size, masked without moving a byte.
  void write_bytes(const std::string& path, const std::map<uint64_t, std::string>& chunks) {
    if (chunks.empty()) return;
    auto resolved = materialize(path);
    struct stat st {};
    if (!resolved || ::stat(source_.host(*resolved).c_str(), &st) != 0) {
      // Gone since it was read (a process in /proc that exited): what was read, where it was asked for.
      resolved = vanished(path);
      if (!resolved) return;
      st = {};
    }
    if (S_ISDIR(st.st_mode)) return;
    std::string file = in_tree(*resolved);
    int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return fail(file, errno);
    const std::string& first = chunks.begin()->second;
    bool whole = st.st_size == 0 || first.size() >= static_cast<uint64_t>(st.st_size);  // /proc files say 0
    bool text = chunks.size() == 1 && chunks.begin()->first == 0 && whole && first.find('\0') == std::string::npos;
    bool ok = true;
    if (text) {
      ok = ::ftruncate(fd, 0) == 0 && write_fully(fd, redacted(first));
    } else {
      if (S_ISREG(st.st_mode)) ok = ::ftruncate(fd, st.st_size) == 0;
      for (const auto& [offset, bytes] : chunks) {
        std::string masked = redactor_ ? redactor_->mask(bytes) : bytes;
        ok = ok && ::pwrite(fd, masked.data(), masked.size(), static_cast<off_t>(offset)) ==
                       static_cast<ssize_t>(masked.size());
      }
    }
    int err = errno;
    if (::close(fd) != 0 && ok) ok = false, err = errno;
    if (!ok) fail(file, err);
  }

  // A file that was read and is no longer there: its folders made plain, an empty file in its place.
  std::optional<std::string> vanished(const std::string& path) {
    std::string p = path_normalize(path);
    std::string done = "/";
    for (const auto& part : split(path_dirname(p), '/')) {
      done = path_join(done, part);
      struct stat st {};
      if (::lstat(in_tree(done).c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) return std::nullopt;
      make_folder(done);
    }
    make_file(p);
    return p;
  }

  // The names of a folder the doctor listed, as empty files where nothing else put them.
  void write_listing(const std::string& dir, const std::vector<std::string>& names) {
    auto resolved = materialize(dir);
    if (!resolved) return;
    for (const auto& name : names) {
      struct stat st {};
      if (::lstat(in_tree(path_join(*resolved, name)).c_str(), &st) != 0) make_file(path_join(*resolved, name));
    }
  }

 private:
  void fail(const std::string& file, int err) {
    if (status_.ok()) status_ = Status::failure(file + ": " + std::strerror(err));
  }
  void make_folder(const std::string& path) {
    std::string dir = in_tree(path);
    if (::mkdir(dir.c_str(), 0755) == 0)
      ++stats_.folders;
    else if (errno != EEXIST)
      fail(dir, errno);
  }
  void make_link(const std::string& path, const std::string& target) {
    std::string link = in_tree(path);
    if (::symlink(redacted(target).c_str(), link.c_str()) == 0)
      ++stats_.links;
    else if (errno != EEXIST)
      fail(link, errno);
  }
  void make_file(const std::string& path) {
    std::string file = in_tree(path);
    int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd >= 0) {
      ++stats_.files;
      ::close(fd);
    } else if (errno != EEXIST) {
      fail(file, errno);
    }
  }

  RootFs source_;
  std::string out_;
  const std::optional<Redactor>& redactor_;
  CaptureTreeStats& stats_;
  Status status_;
};

// stat.tsv (os/root_fs_posix.cpp reads it): what stat() said of each path, type and owner included.
std::string stat_table(const AccessLog& log, const TreeWriter& tree) {
  std::string out;
  for (const auto& [path, st] : log.stats) {
    std::string p = tree.redacted(path);
    if (p.find_first_of("\t\n") != std::string::npos) continue;
    char mode[16];
    std::snprintf(mode, sizeof mode, "%o", st.mode);
    out += std::string(mode) + "\t" + std::to_string(st.uid) + "\t" + std::to_string(st.gid) + "\t" +
           std::to_string(st.size) + "\t" + p + "\n";
  }
  return out;
}

}  // namespace

Status write_capture_tree(const std::string& source_root, const CaptureContents& contents, const std::string& out,
                          const std::optional<Redactor>& redactor, CaptureTreeStats& stats) {
  if (::mkdir(out.c_str(), 0755) != 0) return Status::failure(out + ": " + std::strerror(errno));
  const AccessLog& log = *contents.log;
  TreeWriter tree(source_root, out, redactor, stats);
  for (const auto& p : log.paths) (void)tree.materialize(p);
  for (const auto& [p, chunks] : log.bytes) tree.write_bytes(p, chunks);
  for (const auto& [dir, names] : log.listings) tree.write_listing(dir, names);
  if (!tree.status().ok()) return tree.status();
  std::string own = path_join(out, RootFs::kCaptureDir);
  if (::mkdir(own.c_str(), 0755) != 0) return Status::failure(own + ": " + std::strerror(errno));
  std::string manifest = capture_manifest_json(contents.manifest, redactor ? &*redactor : nullptr);
  for (const auto& [name, text] : {std::pair<std::string, std::string>{"stat.tsv", stat_table(log, tree)},
                                   {"capture.json", manifest},
                                   {"doctor.json", contents.doctor_json}})
    if (auto s = write_file_atomically(path_join(own, name), text); !s.ok()) return s;
  return Status();
}

}  // namespace dlready
