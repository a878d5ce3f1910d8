// Parser for glibc's /etc/ld.so.cache (old "ld.so-1.7.0" and new "glibc-ld.so.cache1.1"
// formats), so the doctor can answer "which file would the loader pick" without running ldconfig.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dlready {

struct LdCacheEntry {
  std::string soname;
  std::string path;
  int flags = 0;  // FLAG_ELF_LIBC6 | arch bits (0x0303 = x86-64 libc6)
  unsigned long long hwcap = 0;
};

struct LdCache {
  std::vector<LdCacheEntry> entries;  // in file order (the loader's preference order)
  std::string format;                 // "new", "old", "old+new"
};

// Errors as values: a string describing what is malformed.
struct LdCacheResult {
  std::optional<LdCache> cache;
  std::string error;
};

LdCacheResult parse_ld_cache(std::string_view bytes);

// Arch bits ld.so accepts on this build's architecture (0 = accept any).
int ld_cache_host_arch_flags();
// The same for a machine's processor ("x86_64" 0x0300, "aarch64" 0x0a00; 0 for another).
int ld_cache_arch_flags(const std::string& machine);

}  // namespace dlready
