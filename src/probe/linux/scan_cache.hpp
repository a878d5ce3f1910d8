// The doctor's cache of its slow answers — the GPU code in a library's fat binaries, a binary's
// library closure as ld.so would resolve it, and a few values read out of big files (dpkg's package
// versions from its ~1 MB status file, glibc's release from libc's .rodata) — so a warm run on a
// GPU machine does not re-read a 0.5 GB libtorch_cuda.so. Each entry keeps the identity (size, mtime, inode, device) of
// every file and directory its answer depended on; one that changed makes the entry stale. Each
// entry is a small JSON file of its own in one folder (a run reads only the entries it asks for),
// written atomically (temp file + rename), so concurrent doctors never see half of one (the last
// writer wins); a corrupt or foreign entry is a miss and is rewritten. The folder is bounded: the
// least recently used entries go beyond 64 entries or 1 MiB.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "facts/facts.hpp"
#include "core/status.hpp"

namespace dlready {

// "<size>:<mtime ns>:<inode>:<device>" of a host path (following symlinks), "-" when it is absent.
std::string file_identity(const std::string& host_path);

// $XDG_CACHE_HOME/dlready/doctor-cache, else $HOME/.cache/dlready/doctor-cache (a folder); "" when neither is set.
std::string default_scan_cache_file(const std::map<std::string, std::string>& env);

class ScanCache {
 public:
  // `dir`: the cache's folder; "" disables the cache (every lookup misses, save does nothing).
  explicit ScanCache(std::string dir);
  std::optional<GpuCode> gpu_code(const std::string& host_library) const;
  void put_gpu_code(const std::string& host_library, const GpuCode& code);
  // key: what else the answer depends on (root, LD_LIBRARY_PATH, binary); host_inputs: the files and
  // directories it read (the binary, each library, each directory searched, ld.so.cache).
  std::optional<Resolution> closure(const std::string& key) const;
  void put_closure(const std::string& key, const Resolution& r, const std::vector<std::string>& host_inputs);
  // key: which values from which file ("dpkg|<status file>|cmake,gcc-12"); host_inputs: the files read.
  std::optional<std::map<std::string, std::string>> values(const std::string& key) const;
  void put_values(const std::string& key, const std::map<std::string, std::string>& values,
                  const std::vector<std::string>& host_inputs);
  // Writes the entries added (each atomically), then keeps the folder within its bounds.
  Status save() const;
  bool loaded() const { return loaded_; }  // the cache folder was there to read

 private:
  std::string dir_;
  std::map<std::string, nlohmann::json> pending_;  // file name -> entry, written by save()
  bool loaded_ = false;
};

}  // namespace dlready
