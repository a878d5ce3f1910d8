// Fuzzes the /etc/ld.so.cache parser: any bytes must give a cache or an error, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "probe/linux/ld_cache.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = dlready::parse_ld_cache(std::string_view(reinterpret_cast<const char*>(data), size));
  if (r.cache)
    for (const auto& e : r.cache->entries) (void)e.path.size();
  return 0;
}
