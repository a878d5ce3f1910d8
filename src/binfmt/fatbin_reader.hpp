// Lists the GPU architectures a library's CUDA fat binaries contain (SASS cubins and PTX),
// reading only the container and entry headers of the ELF sections .nv_fatbin and
// __nv_relfatbin — payloads (often LZ4/ZSTD-compressed) are skipped, nothing is run.
// The layout is checked against cuobjdump on real libraries in tests/fatbin_test.cpp.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>

#include "os/root_fs.hpp"

namespace dlready {

struct FatbinArchs {
  std::set<int> sass;  // 75 = sm_75
  std::set<int> ptx;   // 90 = compute_90
  size_t containers = 0, entries = 0;
  bool lz4 = false, zstd = false;
  std::string error;  // set when a header is malformed (what was read before stays)
  bool empty() const { return sass.empty() && ptx.empty(); }
  // "sm_75 sm_80 ... +PTX compute_90"
  std::string describe() const;
};

using RangeReader = std::function<std::optional<std::string>(uint64_t offset, size_t len)>;

// Walks the containers in [offset, offset+size) of a file.
void scan_fatbin_range(const RangeReader& read, uint64_t offset, uint64_t size, FatbinArchs& out);
// All fatbin sections of an ELF file; nullopt when the file has none (or is not an ELF).
std::optional<FatbinArchs> read_fatbin_archs(const RootFs& fs, const std::string& path);

}  // namespace dlready
