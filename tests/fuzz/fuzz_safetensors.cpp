// Fuzzes the safetensors reader (formats/safetensors): any bytes give the tensors or one line
// saying why not — never an exception, a crash or a tensor whose bytes do not match its shape; what
// it reads, written again and read back, is the same.
#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>

#include "formats/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  auto r = dlready::parse_safetensors(bytes);
  if (auto* why = std::get_if<std::string>(&r); why && why->empty()) __builtin_trap();
  auto* content = std::get_if<dlready::SafetensorsContent>(&r);
  if (!content) return 0;
  for (const auto& t : content->tensors) {
    uint64_t numel = 1;
    for (auto d : t.shape) numel *= static_cast<uint64_t>(d);
    if (t.bytes.size() != numel * dlready::safetensors_element_bytes(t.dtype)) __builtin_trap();
  }
  auto again = dlready::parse_safetensors(dlready::serialize_safetensors(*content));
  auto* back = std::get_if<dlready::SafetensorsContent>(&again);
  if (!back || back->tensors.size() != content->tensors.size() || back->metadata != content->metadata) __builtin_trap();
  for (size_t i = 0; i < back->tensors.size(); ++i)
    if (back->tensors[i].bytes != content->tensors[i].bytes || back->tensors[i].shape != content->tensors[i].shape)
      __builtin_trap();
  return 0;
}
