// libsodium must be initialised once before use (it picks its implementations and seeds its
// random generator); sodium_init() is thread-safe and returns at once after the first call.
#pragma once
#include <sodium.h>

#include <stdexcept>

namespace dlready {

inline void ensure_sodium() {
  if (sodium_init() < 0) throw std::runtime_error("libsodium could not be initialised");
}

}  // namespace dlready
