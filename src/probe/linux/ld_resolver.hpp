// Decides which file the dynamic loader would load for every dependency of a binary, the way
// glibc's ld.so does: DT_RPATH of the object and its loaders (only when the object has no
// DT_RUNPATH), LD_LIBRARY_PATH, DT_RUNPATH, /etc/ld.so.cache, the default directories;
// $ORIGIN/$LIB/$PLATFORM expanded; objects already loaded (by name or SONAME) reused.
// Not modelled: glibc-hwcaps subdirectories, LD_PRELOAD, secure-mode (setuid) restrictions.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "facts/facts.hpp"
#include "os/root_fs.hpp"
#include "binfmt/elf_reader.hpp"
#include "probe/linux/library_locator.hpp"

namespace dlready {

class LdResolver {
 public:
  LdResolver(const RootFs& fs, const LibraryLocator& loc) : fs_(fs), loc_(loc) {}
  // The whole DT_NEEDED closure of `binary`, as `ld.so --list` would show it.
  Resolution resolve(const std::string& binary) const;
  // The closure of a shared library as a program loading it would see it, plus the libraries
  // its members are known to dlopen by name at run time (cuDNN's sub-libraries), each resolved
  // as that member's dlopen would (its RUNPATH after LD_LIBRARY_PATH).
  Resolution resolve_library(const std::string& library) const;

 private:
  const RootFs& fs_;
  const LibraryLocator& loc_;
};

// A DT_RPATH/DT_RUNPATH value as the folders ld.so searches: split at ':', $ORIGIN (`origin`, the
// object's folder), $LIB and $PLATFORM expanded.
std::vector<std::string> expand_search_path(const std::optional<std::string>& value, const std::string& origin);

// The libraries a CUDA library is known to dlopen by name (cuDNN 8/9 sub-libraries).
std::vector<std::string> known_dlopen_children(const std::string& soname);

}  // namespace dlready
