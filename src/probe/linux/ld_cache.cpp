#include "probe/linux/ld_cache.hpp"

#include <cstdint>
#include <cstring>
#include <utility>

namespace dlready {
namespace {

constexpr std::string_view kOldMagic = "ld.so-1.7.0";
constexpr std::string_view kNewMagic = "glibc-ld.so.cache";
constexpr std::string_view kNewVersion = "1.1";
constexpr size_t kOldHeader = 16;       // magic[11] padded + uint32 nlibs
constexpr size_t kOldEntry = 12;        // int32 flags, uint32 key, uint32 value
constexpr size_t kNewHeader = 48;       // magic+version[20], nlibs, len_strings, flags, pad, ext
constexpr size_t kNewEntry = 24;        // int32 flags, key, value, osversion, uint64 hwcap
constexpr uint32_t kMaxEntries = 1u << 20;

uint32_t u32(std::string_view b, size_t off) {
  uint32_t v;
  std::memcpy(&v, b.data() + off, 4);
  return v;
}
uint64_t u64(std::string_view b, size_t off) {
  uint64_t v;
  std::memcpy(&v, b.data() + off, 8);
  return v;
}

// NUL-terminated string at `off` within `b`, or nullopt when it runs off the end.
std::optional<std::string> cstr(std::string_view b, size_t off) {
  if (off >= b.size()) return std::nullopt;
  size_t end = b.find('\0', off);
  if (end == std::string_view::npos) return std::nullopt;
  return std::string(b.substr(off, end - off));
}

}  // namespace

int ld_cache_arch_flags(const std::string& machine) {
  return machine == "x86_64" ? 0x0300 : machine == "aarch64" ? 0x0a00 : 0;
}

int ld_cache_host_arch_flags() {
#if defined(__x86_64__)
  return 0x0300;
#elif defined(__aarch64__)
  return 0x0a00;
#else
  return 0;
#endif
}

LdCacheResult parse_ld_cache(std::string_view b) {
  LdCacheResult r;
  size_t new_off = 0;
  std::string format = "new";
  if (b.substr(0, kOldMagic.size()) == kOldMagic) {
    if (b.size() < kOldHeader) return {std::nullopt, "truncated old-format header"};
    uint32_t n = u32(b, 12);
    if (n > kMaxEntries || kOldHeader + size_t{n} * kOldEntry > b.size())
      return {std::nullopt, "old-format entry table runs past the end of the file"};
    new_off = kOldHeader + size_t{n} * kOldEntry;
    new_off = (new_off + 7) & ~size_t{7};  // the new table is 8-byte aligned after the old one
    if (new_off + kNewMagic.size() > b.size() || b.substr(new_off, kNewMagic.size()) != kNewMagic) {
      // Old format only: strings follow the entry table.
      LdCache cache;
      cache.format = "old";
      cache.entries.reserve(n);
      size_t strings = kOldHeader + size_t{n} * kOldEntry;
      for (uint32_t i = 0; i < n; ++i) {
        size_t e = kOldHeader + size_t{i} * kOldEntry;
        auto key = cstr(b, strings + u32(b, e + 4));
        auto value = cstr(b, strings + u32(b, e + 8));
        if (!key || !value) return {std::nullopt, "old-format string offset out of range"};
        cache.entries.push_back({*key, *value, static_cast<int>(u32(b, e)), 0});
      }
      return {std::move(cache), ""};  // a named local is copied into the optional otherwise
    }
    format = "old+new";
  }
  std::string_view nb = b.substr(new_off);
  if (nb.size() < kNewHeader || nb.substr(0, kNewMagic.size()) != kNewMagic)
    return {std::nullopt, "not an ld.so.cache file (bad magic)"};
  if (nb.substr(kNewMagic.size(), kNewVersion.size()) != kNewVersion)
    return {std::nullopt, "unsupported ld.so.cache version"};
  uint32_t n = u32(nb, 20);
  if (n > kMaxEntries || kNewHeader + size_t{n} * kNewEntry > nb.size())
    return {std::nullopt, "entry table runs past the end of the file"};
  LdCache cache;
  cache.format = format;
  cache.entries.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    size_t e = kNewHeader + size_t{i} * kNewEntry;
    // String offsets are relative to the start of the new-format header.
    auto key = cstr(nb, u32(nb, e + 4));
    auto value = cstr(nb, u32(nb, e + 8));
    if (!key || !value) return {std::nullopt, "string offset out of range in entry " + std::to_string(i)};
    cache.entries.push_back({*key, *value, static_cast<int>(u32(nb, e)), u64(nb, e + 16)});
  }
  return {std::move(cache), ""};  // a named local is copied into the optional otherwise
}

}  // namespace dlready
