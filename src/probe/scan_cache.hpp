// The doctor's cache of its two slow answers — the GPU code in a library's fat binaries and a
// binary's library closure as ld.so would resolve it — so a warm run on a GPU machine does not
// re-read a 0.5 GB libtorch_cuda.so. Each entry keeps the identity (size, mtime, inode, device) of
// every file and directory its answer depended on; one that changed makes the entry stale. The
// file is JSON, written atomically (temp file + rename), so concurrent doctors never see half of
// one (the last writer wins); a corrupt or foreign file is ignored and rewritten.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/facts.hpp"
#include "core/status.hpp"

namespace dlready {

// "<size>:<mtime ns>:<inode>:<device>" of a host path (following symlinks), "-" when it is absent.
std::string file_identity(const std::string& host_path);

// $XDG_CACHE_HOME/dlready/doctor-cache.json, else $HOME/.cache/dlready/doctor-cache.json; "" when neither is set.
std::string default_scan_cache_file(const std::map<std::string, std::string>& env);

class ScanCache {
 public:
  // "" disables the cache (every lookup misses, save does nothing).
  explicit ScanCache(std::string file);
  std::optional<GpuCode> gpu_code(const std::string& host_library) const;
  void put_gpu_code(const std::string& host_library, const GpuCode& code);
  // key: what else the answer depends on (root, LD_LIBRARY_PATH, binary); host_inputs: the files and
  // directories it read (the binary, each library, each directory searched, ld.so.cache).
  std::optional<Resolution> closure(const std::string& key) const;
  void put_closure(const std::string& key, const Resolution& r, const std::vector<std::string>& host_inputs);
  // Writes the file when something was added; creates its directory.
  Status save() const;
  bool loaded() const { return loaded_; }  // a valid cache file was read

 private:
  std::string file_;
  nlohmann::json data_ = nlohmann::json::object();
  bool loaded_ = false, dirty_ = false;
};

}  // namespace dlready
