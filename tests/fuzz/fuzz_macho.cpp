// Fuzzes the Mach-O reader (thin and universal headers, load commands and their strings): it must
// answer or fail with an error value, never crash or read out of bounds.
#include <cstddef>
#include <cstdint>
#include <string>

#include "binfmt/macho_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  auto r = dlready::parse_macho(dlready::bytes_reader(bytes));
  if (r.file)
    for (const auto& s : r.file->slices) (void)dlready::macho_cpu_name(s.cputype);
  return 0;
}
