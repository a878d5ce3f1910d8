// Fuzzes the PE reader (headers, import and delay-import tables): it must answer or fail with an
// error value, never crash or read out of bounds.
#include <cstddef>
#include <cstdint>
#include <string>

#include "binfmt/pe_image.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  auto r = dlready::parse_pe(dlready::bytes_reader(bytes));
  if (r.image) (void)dlready::pe_machine_name(r.image->machine);
  return 0;
}
