// Fuzzes the checkpoint reader (formats/checkpoint_format): any bytes give the run state and its
// tensors or one line naming the file and why not — never an exception, a crash, a tensor whose
// bytes do not match its shape or a NaN let through; what it reads, written again, reads the same.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "formats/checkpoint_format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  auto ck = dlready::parse_checkpoint_bytes(bytes, "fuzz.dlr");
  if (!ck.error.empty()) {
    if (ck.error.rfind("fuzz.dlr: ", 0) != 0 || !ck.tensors.empty()) __builtin_trap();
    return 0;
  }
  for (const auto& t : ck.tensors) {
    uint64_t numel = 1;
    for (auto d : t.shape) numel *= static_cast<uint64_t>(d);
    if (t.bytes.size() != numel * sizeof(float)) __builtin_trap();
    for (size_t i = 0; i < t.bytes.size(); i += sizeof(float)) {
      float v;
      std::memcpy(&v, t.bytes.data() + i, sizeof v);
      if (!std::isfinite(v)) __builtin_trap();
    }
  }
  auto again = dlready::parse_checkpoint_bytes(dlready::serialize_checkpoint(ck.meta, ck.tensors), "again");
  if (!again.error.empty() || again.meta != ck.meta || again.tensors.size() != ck.tensors.size()) __builtin_trap();
  for (size_t i = 0; i < ck.tensors.size(); ++i)
    if (again.tensors[i].bytes != ck.tensors[i].bytes || again.tensors[i].shape != ck.tensors[i].shape) __builtin_trap();
  return 0;
}
