#include "data/decoded_cache.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <system_error>
#include <vector>

#include "core/crc32c.hpp"
#include "os/atomic_file.hpp"
#include "os/mapped_file.hpp"
#include "os/posix_fs.hpp"

namespace dlready {
namespace {

// Version 2: the magic line, then "<digest name> <hex>" of the source's bytes the copy was decoded
// from (or "-"), then the IDX bytes. Version 1 copies (no digest line) are misses.
constexpr const char* kMagic = "dlready-decoded-idx 2\n";
constexpr size_t kMaxDigestLine = 256;
constexpr uint64_t kMaxCopy = (1ull << 31) + 4096;  // idx.cpp's bound on an IDX file, and the line above it

// "<crc32c of the path>-": every copy of one source starts so; the rest names its version.
std::string source_prefix(const std::string& source) {
  std::error_code ec;
  auto absolute = std::filesystem::absolute(source, ec);
  char hex[16];
  std::snprintf(hex, sizeof hex, "%08x", crc32c(ec ? source : absolute.string()));
  return std::string(hex) + "-";
}

// The copy's file name for the source as it is now; nullopt when the source cannot be looked at.
std::optional<std::string> copy_name(const std::string& source) {
  std::error_code ec;
  auto size = std::filesystem::file_size(source, ec);
  if (ec) return std::nullopt;
  auto mtime = std::filesystem::last_write_time(source, ec);
  if (ec) return std::nullopt;
  long long ns = std::chrono::duration_cast<std::chrono::nanoseconds>(mtime.time_since_epoch()).count();
  return source_prefix(source) + std::to_string(size) + "-" + std::to_string(ns) + ".idx";
}

// The IDX bytes of an array: the magic (unsigned bytes, its dimension count), each dimension
// big-endian, the data.
std::string idx_bytes(const IdxArray& a) {
  std::string out = {0, 0, 0x08, static_cast<char>(a.dims.size())};
  for (uint32_t d : a.dims)
    for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((d >> shift) & 0xff);
  out.append(reinterpret_cast<const char*>(a.data.data()), a.data.size());
  return out;
}

}  // namespace

std::optional<IdxArray> read_decoded_copy(const std::string& cache, const std::string& source, SourceDigest* digest) {
  auto name = copy_name(source);
  if (!name) return std::nullopt;
  // Mapped, not read (os/mapped_file.hpp): the copies are only ever written whole and replaced by
  // rename. A link, a FIFO or a device placed here is not ours and not opened.
  const std::string path = cache + "/" + *name;
  auto file = map_regular_file(path, kMaxCopy);
  if (!file) return std::nullopt;
  const std::string_view bytes(reinterpret_cast<const char*>(file->bytes), file->size);
  const std::string_view magic = kMagic;
  if (bytes.substr(0, magic.size()) != magic) return std::nullopt;
  const size_t line_end = bytes.find('\n', magic.size());
  if (line_end == std::string_view::npos || line_end - magic.size() > kMaxDigestLine) return std::nullopt;
  const std::string_view digest_line = bytes.substr(magic.size(), line_end - magic.size());
  // The IDX header: its magic (the last byte counts the dimensions), then each dimension.
  const std::string_view idx = bytes.substr(line_end + 1);
  uint64_t count = 0;
  auto parsed = parse_idx_header(idx, path, count);
  if (!parsed.array) return std::nullopt;
  const size_t header = 4 + 4 * parsed.array->dims.size();
  if (idx.size() != header + count) return std::nullopt;  // another length: a miss
  parsed.array->data = ByteArray::view(file->bytes + (line_end + 1) + header, static_cast<size_t>(count), file->keeper);
  if (digest) {
    auto space = digest_line.find(' ');
    *digest = space == std::string_view::npos ? SourceDigest{}
                                              : SourceDigest{std::string(digest_line.substr(0, space)), std::string(digest_line.substr(space + 1))};
  }
  return std::move(parsed.array);  // a member of a local is copied, not moved, by a plain return
}

namespace {

// The folder stays bounded: datasets come and go (a temporary folder's copy outlives it), so past
// kMaxCopies copies or kMaxTotal bytes the least recently written go first.
constexpr size_t kMaxCopies = 16;
constexpr uintmax_t kMaxTotal = uintmax_t{4} << 30;

void keep_bounded(const std::string& cache, const std::string& just_written) {
  struct Copy {
    std::filesystem::file_time_type written;
    uintmax_t size;
    std::string path;
  };
  std::vector<Copy> copies;
  uintmax_t total = 0;
  for (const auto& name : list_directory(cache)) {
    std::error_code ec;
    const std::string path = cache + "/" + name;
    auto size = std::filesystem::file_size(path, ec);
    auto written = ec ? std::filesystem::file_time_type{} : std::filesystem::last_write_time(path, ec);
    if (ec || name.size() < 4 || name.compare(name.size() - 4, 4, ".idx") != 0) continue;
    copies.push_back({written, size, path});
    total += size;
  }
  std::sort(copies.begin(), copies.end(), [](const Copy& a, const Copy& b) { return a.written < b.written; });
  for (size_t i = 0; i < copies.size() && (copies.size() - i > kMaxCopies || total > kMaxTotal); ++i) {
    if (copies[i].path == just_written) continue;
    std::remove(copies[i].path.c_str());
    total -= copies[i].size;
  }
}

}  // namespace

void write_decoded_copy(const std::string& cache, const std::string& source, const IdxArray& a,
                        const SourceDigest& digest) {
  auto name = copy_name(source);
  if (!name || !make_directories(cache)) return;
  // Only a name and a hex digest go on the line (they are read back as written).
  auto plain = [](const std::string& t, bool hex) {
    return !t.empty() && t.size() < kMaxDigestLine / 2 &&
           std::all_of(t.begin(), t.end(), [&](char c) { return std::isxdigit(static_cast<unsigned char>(c)) || (!hex && (std::isalnum(static_cast<unsigned char>(c)) || c == '-')); });
  };
  std::string line = plain(digest.name, false) && plain(digest.hex, true) ? digest.name + " " + digest.hex : "-";
  if (!write_file_atomically(cache + "/" + *name, kMagic + line + "\n" + idx_bytes(a))) return;
  const std::string prefix = source_prefix(source);
  for (const auto& other : list_directory(cache))
    if (other != *name && other.compare(0, prefix.size(), prefix) == 0) std::remove((cache + "/" + other).c_str());
  keep_bounded(cache, cache + "/" + *name);
}

}  // namespace dlready
