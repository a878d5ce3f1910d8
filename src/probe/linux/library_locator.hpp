// Finds the file the dynamic loader would open for dlopen("<soname>") from a program without
// RPATH/RUNPATH: LD_LIBRARY_PATH, then /etc/ld.so.cache, then the default directories — all
// taken under the root.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "facts/facts.hpp"
#include "os/root_fs.hpp"
#include "probe/linux/ld_cache.hpp"

namespace dlready {

class LibraryLocator {
 public:
  // `machine`: the examined machine's processor (uname's x86_64, aarch64); nullopt: this build's.
  LibraryLocator(const RootFs& fs, std::optional<std::string> ld_library_path,
                 const std::optional<std::string>& machine = std::nullopt);

  LibraryLocation locate(const std::string& soname) const;

  // The pieces of ld.so's search, for the full resolver (ld_resolver.hpp).
  const std::vector<std::string>& ld_library_path() const { return ld_library_path_; }
  const std::vector<std::string>& default_dirs() const { return default_dirs_; }
  bool has_cache() const { return cache_.has_value(); }
  std::optional<std::string> cache_lookup(const std::string& soname) const;  // existing file only
  // Fills real_path, version and the stub/compat/wsl flags of a found location.
  void describe(LibraryLocation& loc) const;

 private:
  const RootFs& fs_;
  std::vector<std::string> ld_library_path_;
  std::optional<LdCache> cache_;
  std::vector<std::string> default_dirs_;
  int cache_flags_ = 0;  // ld.so.cache's architecture flags of the examined machine's libraries
};

// Version from a library file name: "libcuda.so.580.65.06" -> "580.65.06".
std::optional<std::string> library_version_from_name(const std::string& file_name);

}  // namespace dlready
