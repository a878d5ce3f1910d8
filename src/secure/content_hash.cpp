#include "secure/content_hash.hpp"

#include "secure/sodium_init.hpp"

namespace dlready {

static_assert(kContentHashBytes == crypto_generichash_BYTES);

std::string content_hash(std::string_view bytes) {
  ensure_sodium();
  unsigned char out[kContentHashBytes];
  crypto_generichash(out, sizeof out, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), nullptr, 0);
  return std::string(reinterpret_cast<char*>(out), sizeof out);
}

}  // namespace dlready
