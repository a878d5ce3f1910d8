// Fuzzes the IDX parser and the bounded gunzip in front of it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "data/idx.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  (void)dlready::parse_idx(in, "input");
  std::string err;
  if (auto plain = dlready::gunzip(in, 64u << 20, err)) (void)dlready::parse_idx(*plain, "input.gz");
  return 0;
}
