// Fuzzes the sealed-file reader (header, key id, chunk framing, tags) with a fixed key, the one
// the seed corpus was sealed with, so mutations of real files reach every chunk's checks.
#include <cstddef>
#include <cstdint>
#include <string>

#include "secure/sealed_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const unsigned char kKey[32] = {'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B',
                                         'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B'};
  auto key = dlready::SealingKey::from_raw_key(kKey, "the fuzz key");
  auto r = dlready::unseal_bytes(std::string_view(reinterpret_cast<const char*>(data), size), *key, "input");
  if (!r.bytes && r.error.empty()) __builtin_trap();  // every refusal says why
  return 0;
}
