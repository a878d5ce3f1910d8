// Fuzzes `dlready audit verify`'s reader: any bytes give a verdict (intact, or the first bad
// record and why), never an exception or a crash; with and without a public key.
#include <cstddef>
#include <cstdint>
#include <string>

#include "secure/audit_log.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const unsigned char kPublicKey[32] = {1, 2, 3};
  std::string_view log(reinterpret_cast<const char*>(data), size);
  auto plain = dlready::verify_audit_bytes(log, nullptr);
  if (!plain.intact && plain.problem.empty()) __builtin_trap();
  auto sig = dlready::verify_audit_bytes(log, kPublicKey);
  if (!sig.intact && sig.problem.empty()) __builtin_trap();
  return 0;
}
