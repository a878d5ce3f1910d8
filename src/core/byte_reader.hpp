// A file read by ranges: the binary readers (ELF, PE) ask for the few bytes they need, so a 1 GB
// torch_cuda library costs a few small reads, and the same reader runs over a disk file, a fixture
// root or a fuzzer's bytes.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace dlready {

// Returns up to `len` bytes at `offset` (short at end of file), nullopt when unreadable.
using ByteReader = std::function<std::optional<std::string>(uint64_t offset, size_t len)>;

// A reader over bytes already in memory (tests and fuzzers).
inline ByteReader bytes_reader(const std::string& bytes) {
  return [&bytes](uint64_t offset, size_t len) -> std::optional<std::string> {
    if (offset > bytes.size()) return std::string();
    return bytes.substr(static_cast<size_t>(offset), len);
  };
}

}  // namespace dlready
