// Fuzzes `dlready explain`'s reading of a stranger's text (diagnose/error_signatures): any bytes
// give matches whose lines and values are printable and bounded, and the advice fills in.
#include <cstddef>
#include <cstdint>
#include <string>

#include "diagnose/error_signatures.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  for (const auto& m : dlready::match_error_signatures(text)) {
    if (!m.signature || m.line.size() > 2000) __builtin_trap();
    for (unsigned char c : m.line)
      if (c < 0x20 || c == 0x7f) __builtin_trap();  // printable: control characters escaped
    for (const auto& [name, value] : m.values) {
      if (value.size() > 2000) __builtin_trap();
      for (unsigned char c : value)
        if (c < 0x20 || c == 0x7f) __builtin_trap();
    }
    (void)dlready::signature_advice(m);
  }
  return 0;
}
