// RootFs: every file the doctor reads goes through here, so that `--root DIR` (the public test
// seam) relocates /proc, /sys, /dev, /etc, library dirs and Python environments in one place.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <unordered_set>
#include <vector>

#include "core/byte_reader.hpp"
#include "core/path_text.hpp"

namespace dlready {

struct AccessLog;

struct FileStat {
  mode_t mode = 0;
  uid_t uid = 0;
  gid_t gid = 0;
  bool is_dir = false;
  bool is_char_device = false;
  bool is_regular = false;
  uint64_t size = 0;
};

// Bytes of a file seen in place: `text` lives while `keeper` (a mapping or a buffer) does.
struct FileView {
  std::string_view text;
  std::shared_ptr<const void> keeper;
};

class RootFs {
 public:
  explicit RootFs(std::string root = "/");

  const std::string& root() const { return root_; }
  bool is_host_root() const { return root_ == "/"; }

  // Host path for a path inside the root ("/proc/version" -> "<root>/proc/version").
  std::string host(const std::string& path) const;

  std::optional<std::string> read(const std::string& path, size_t max_bytes = 1 << 20) const;
  // Up to `len` bytes at `offset` (short at end of file).
  std::optional<std::string> read_at(const std::string& path, uint64_t offset, size_t len) const;
  // read_at over one file opened once (an ELF file is read a header, a table and a section at a
  // time: libc.so.6 was opened a dozen times a doctor run); recorded as read_at records. Every
  // read is nullopt when the file cannot be opened. It must not outlive this RootFs.
  ByteReader reader(const std::string& path) const;
  // Up to `len` bytes at `offset` to look through in place (short at end of file), recorded as
  // read_at records: a regular file is mapped read-only, so dpkg's 750 KB status file or libc's
  // .rodata costs a few page faults instead of a buffer's (~880 of the doctor's 1,280); anything
  // else (/proc, /sys) is read. nullopt when the file cannot be opened.
  std::optional<FileView> view_at(const std::string& path, uint64_t offset, size_t len) const;
  // First line without the trailing newline, trimmed.
  std::optional<std::string> read_line(const std::string& path) const;
  bool exists(const std::string& path) const;
  bool is_dir(const std::string& path) const;
  // A directory this process may list (permissions as the kernel checks them for this user).
  bool can_list(const std::string& path) const;
  std::optional<FileStat> stat(const std::string& path) const;  // follows symlinks
  std::optional<std::string> readlink(const std::string& path) const;
  // Sorted names in a directory (no "." / ".."); empty when unreadable.
  std::vector<std::string> list(const std::string& dir) const;
  // Resolves symlinks the way the kernel would if the root were "/": absolute link targets are
  // taken under the root. Returns a path inside the root, or nullopt for a dangling link/loop.
  std::optional<std::string> resolve(const std::string& path) const;

  // From now on each folder is listed once for the life of this RootFs and its copies: one
  // examination lists /usr/lib, a venv's site-packages and /lib three times each. A folder that
  // changes meanwhile is not seen to (what one examination is: the machine as it was at its start).
  void remember_listings() { listings_ = std::make_shared<Listings>(); }

  // Notes every path asked about, and what was read, into `log` (nullptr stops): `dlready
  // capture`. The log must outlive this object.
  void record_into(AccessLog* log) { log_ = log; }
  AccessLog* access_log() const { return log_; }

  // The folder a capture keeps its own files in (facts/access_log.hpp); under a root that holds one,
  // stat() answers from its stat.tsv, so device nodes, owners and sizes replay as they were.
  static constexpr const char* kCaptureDir = "/.dlready-capture";

 private:
  std::string opened(const std::string& path) const;
  std::string unfollowed(const std::string& path) const;
  int open_for_reading(const std::string& path) const;
  void note(const std::string& path) const;
  std::string root_;
  AccessLog* log_ = nullptr;
  std::map<std::string, FileStat> replayed_stats_;
  // The folders resolve() found to be folders, not links: the doctor resolves a few hundred paths
  // under the same few (/usr, /usr/lib, a venv), which were an lstat each every time (~300 a run).
  // Shared by copies of this RootFs; a folder replaced by a link during one run is not seen.
  struct ResolvedFolders {
    std::mutex lock;
    std::unordered_set<std::string> paths;
  };
  std::shared_ptr<ResolvedFolders> folders_ = std::make_shared<ResolvedFolders>();
  struct Listings {
    std::mutex lock;
    std::map<std::string, std::vector<std::string>> by_folder;
  };
  std::shared_ptr<Listings> listings_;  // null: every list() reads the folder
};


}  // namespace dlready
