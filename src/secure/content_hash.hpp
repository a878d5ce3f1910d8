// A file's own checksum, to tell a torn or altered file from a good one (not a signature: anyone
// may recompute it): BLAKE2b-256 from libsodium.
#pragma once
#include <string>
#include <string_view>

namespace dlready {

constexpr size_t kContentHashBytes = 32;

// The 32 raw bytes of BLAKE2b-256 over `bytes`.
std::string content_hash(std::string_view bytes);

}  // namespace dlready
