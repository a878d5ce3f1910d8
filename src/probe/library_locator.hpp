// Finds the file the dynamic loader would open for dlopen("<soname>") from a program without
// RPATH/RUNPATH: LD_LIBRARY_PATH, then /etc/ld.so.cache, then the default directories — all
// taken under the root.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/facts.hpp"
#include "core/root_fs.hpp"
#include "probe/ld_cache.hpp"

namespace dlready {

class LibraryLocator {
 public:
  LibraryLocator(const RootFs& fs, std::optional<std::string> ld_library_path);

  LibraryLocation locate(const std::string& soname) const;

 private:
  void fill_details(LibraryLocation& loc) const;

  const RootFs& fs_;
  std::vector<std::string> ld_library_path_;
  std::optional<LdCache> cache_;
  std::vector<std::string> default_dirs_;
};

// Version from a library file name: "libcuda.so.580.65.06" -> "580.65.06".
std::optional<std::string> library_version_from_name(const std::string& file_name);

}  // namespace dlready
