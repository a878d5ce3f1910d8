#include "binfmt/fatbin_reader.hpp"

#include <algorithm>
#include <cstring>

#include "binfmt/elf_reader.hpp"

namespace dlready {
namespace {

constexpr uint32_t kContainerMagic = 0xBA55ED50;
constexpr uint64_t kFlagLz4 = 0x2000, kFlagZstd = 0x8000;
constexpr uint64_t kMaxEntriesPerContainer = 1u << 20;

template <typename T>
T get(const std::string& b, size_t off) {
  T v;
  std::memcpy(&v, b.data() + off, sizeof v);
  return v;
}

}  // namespace

std::string FatbinArchs::describe() const {
  std::string s;
  for (int a : sass) s += (s.empty() ? "" : " ") + std::string("sm_") + std::to_string(a);
  for (int a : ptx) s += (s.empty() ? "" : " ") + std::string("compute_") + std::to_string(a) + "(PTX)";
  return s.empty() ? "no GPU code" : s;
}

constexpr uint64_t kMaxZeroPadding = 1u << 20;

void scan_fatbin_range(const RangeReader& read, uint64_t offset, uint64_t size, FatbinArchs& out) {
  uint64_t pos = offset, end = offset + size;
  // Where the run of zero padding being skipped began (a plain sentinel: GCC 12 misreads an optional here).
  constexpr uint64_t kNoRun = ~uint64_t{0};
  uint64_t zeros_from = kNoRun;
  while (pos + 16 <= end) {
    auto h = read(pos, 16);
    if (!h || h->size() < 16) {
      out.error = "truncated container header";
      return;
    }
    uint32_t magic = get<uint32_t>(*h, 0);
    if (magic != kContainerMagic) {
      // Containers are 8-byte aligned and may be separated by zero padding: a few bytes, never a
      // megabyte (a sparse file of zeros would be walked 8 bytes at a time for gigabytes).
      if (magic == 0) {
        if (zeros_from == kNoRun) zeros_from = pos;
        if (pos + 8 - zeros_from > kMaxZeroPadding) {
          out.error = "only zeros from offset " + std::to_string(zeros_from) + " on: no container there";
          return;
        }
        pos += 8;
        continue;
      }
      out.error = "bad container magic at offset " + std::to_string(pos);
      return;
    }
    zeros_from = kNoRun;
    uint16_t header_size = get<uint16_t>(*h, 6);
    uint64_t fat_size = get<uint64_t>(*h, 8);
    if (header_size < 16 || fat_size > end - pos || header_size > end - pos - fat_size + header_size) {
      out.error = "container size out of range at offset " + std::to_string(pos);
      return;
    }
    ++out.containers;
    uint64_t e = pos + header_size, cend = pos + header_size + fat_size;
    if (cend > end) cend = end;
    for (uint64_t n = 0; e + 64 <= cend && n < kMaxEntriesPerContainer; ++n) {
      auto eh = read(e, 64);
      if (!eh || eh->size() < 64) {
        out.error = "truncated entry header";
        return;
      }
      uint16_t kind = get<uint16_t>(*eh, 0);
      uint32_t ehsize = get<uint32_t>(*eh, 4);
      uint64_t payload = get<uint32_t>(*eh, 8);
      uint32_t compressed = get<uint32_t>(*eh, 0x10);
      uint32_t arch = get<uint32_t>(*eh, 0x1C);
      uint64_t flags = get<uint64_t>(*eh, 0x28);
      if (ehsize < 64 || ehsize > 4096) {
        out.error = "entry header size " + std::to_string(ehsize) + " out of range";
        return;
      }
      ++out.entries;
      if (kind == 1) out.ptx.insert(static_cast<int>(arch));
      if (kind == 2 || kind == 0x10) out.sass.insert(static_cast<int>(arch));
      out.lz4 |= (flags & kFlagLz4) != 0;
      out.zstd |= (flags & kFlagZstd) != 0;
      uint64_t step = uint64_t{ehsize} + std::max<uint64_t>(payload, compressed);
      if (step > cend - e) break;  // the last entry may run to the end of the container
      e += step;
    }
    pos = pos + header_size + fat_size;
    pos = (pos + 7) & ~uint64_t{7};
  }
}

std::optional<FatbinArchs> read_fatbin_archs(const RootFs& fs, const std::string& path) {
  auto elf = read_elf(fs, path, /*sections=*/true);
  if (!elf.info) return std::nullopt;
  FatbinArchs out;
  bool any = false;
  // A 256 KiB window in front of pread: entry headers are many and small, payloads are skipped.
  std::string window;
  uint64_t window_start = 0;
  RangeReader read = [&](uint64_t off, size_t len) -> std::optional<std::string> {
    if (off < window_start || off + len > window_start + window.size()) {
      auto w = fs.read_at(path, off, std::max<size_t>(len, 256 * 1024));
      if (!w) return std::nullopt;
      window = std::move(*w);
      window_start = off;
    }
    uint64_t rel = off - window_start;
    return window.substr(rel, std::min<uint64_t>(len, window.size() - rel));
  };
  for (const auto& s : elf.info->sections) {
    if (s.name != ".nv_fatbin" && s.name != "__nv_relfatbin") continue;
    if (s.type == 8 /* SHT_NOBITS */) continue;
    any = true;
    scan_fatbin_range(read, s.offset, s.size, out);
  }
  if (!any) return std::nullopt;
  return out;
}

}  // namespace dlready
