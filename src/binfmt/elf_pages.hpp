// The windows the ELF readers read through (elf_reader.cpp, elf_symbols.cpp): a part of the file
// read a page at a time, each page once, and the dynamic string table over such a window. Internal
// to binfmt/.
#pragma once
#include <elf.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>

#include "core/byte_reader.hpp"

namespace dlready {

// A fixed-size record at `off` (an ELF header, a program header); false when the file is shorter.
template <typename T>
bool read_struct(const ByteReader& read, uint64_t off, T& out) {
  auto b = read(off, sizeof(T));
  if (!b || b->size() < sizeof(T)) return false;
  std::memcpy(&out, b->data(), sizeof(T));
  return true;
}

// A window of the file read a page at a time, each page once (a capture keeps only the pages read).
class PagedWindow {
 public:
  PagedWindow(const ByteReader& read, uint64_t offset, uint64_t size) : read_(read), offset_(offset), size_(size) {}

  static constexpr uint64_t kPage = 4096;
  uint64_t size() const { return size_; }

  template <typename T>
  bool get(uint64_t off, T& out) const {
    if (off > size_ || size_ - off < sizeof(T)) return false;
    auto* bytes = reinterpret_cast<char*>(&out);
    for (size_t done = 0; done < sizeof(T);) {
      uint64_t pos = off + done;
      const std::string* p = page(pos / kPage);
      size_t in = static_cast<size_t>(pos % kPage);
      if (!p || in >= p->size()) return false;
      size_t n = std::min(sizeof(T) - done, p->size() - in);
      std::memcpy(bytes + done, p->data() + in, n);
      done += n;
    }
    return true;
  }

  // Page n of the window (short at its end); nullptr when it cannot be read.
  const std::string* page(uint64_t n) const {
    auto it = pages_.find(n);
    if (it == pages_.end()) {
      uint64_t start = n * kPage;
      auto bytes = read_(offset_ + start, static_cast<size_t>(std::min(kPage, size_ - start)));
      if (!bytes) return nullptr;
      it = pages_.emplace(n, std::move(*bytes)).first;
    }
    return &it->second;
  }

 private:
  const ByteReader& read_;
  uint64_t offset_, size_;
  mutable std::map<uint64_t, std::string> pages_;
};

// The dynamic string table, read a page at a time where a string is asked for: libtorch_cpu.so's
// is megabytes of symbol names, and the loader's questions need a few dozen of them (a capture of
// the machine keeps only what was read).
class StringTable {
 public:
  StringTable(const ByteReader& read, uint64_t offset, uint64_t size) : window_(read, offset, size) {}

  // The NUL-terminated string at `off`; nullopt when it starts or runs outside the table.
  std::optional<std::string> at(uint64_t off) const {
    if (off >= window_.size()) return std::nullopt;
    std::string out;
    for (uint64_t pos = off; pos < window_.size() && out.size() <= kMaxString;) {
      const std::string* bytes = window_.page(pos / PagedWindow::kPage);
      size_t in = static_cast<size_t>(pos % PagedWindow::kPage);
      if (!bytes || in >= bytes->size()) return std::nullopt;
      size_t nul = bytes->find('\0', in);
      if (nul != std::string::npos) return out.append(*bytes, in, nul - in);
      out.append(*bytes, in, std::string::npos);
      pos += bytes->size() - in;
    }
    return std::nullopt;
  }

 private:
  static constexpr size_t kMaxString = 64 * 1024;
  PagedWindow window_;
};

// Symbol versioning's tables (.gnu.version_r / .gnu.version_d): each walked with one budget of
// records for the whole table, so counts of 4096 x 4096 cost 4096 records, not 16 M reads. A chain
// that leaves the window or loops is cut where it goes wrong.
inline constexpr unsigned kMaxVersionRecords = 4096;

// visit(index, file, version) for each version a needed file must define (index: vna_other, what
// .gnu.version's entries name).
template <class Visit>
void walk_version_needs(const PagedWindow& table, uint64_t count, const StringTable& strings, Visit visit) {
  unsigned budget = kMaxVersionRecords;
  for (uint64_t i = 0, off = 0; i < count && budget > 0; ++i, --budget) {
    Elf64_Verneed vn;
    if (!table.get(off, vn)) return;
    auto file = strings.at(vn.vn_file);
    uint64_t aux = off + vn.vn_aux;
    for (unsigned k = 0; k < vn.vn_cnt && file && budget > 0; ++k, --budget) {
      Elf64_Vernaux va;
      if (!table.get(aux, va)) break;
      if (auto name = strings.at(va.vna_name)) visit(va.vna_other, *file, *name);
      if (va.vna_next == 0) break;
      aux += va.vna_next;
    }
    if (vn.vn_next == 0) return;
    off += vn.vn_next;
  }
}

// visit(index, flags, version) for each version the object defines (the first aux names it; the
// entry with VER_FLG_BASE names the file itself).
template <class Visit>
void walk_version_defs(const PagedWindow& table, uint64_t count, const StringTable& strings, Visit visit) {
  for (uint64_t i = 0, off = 0; i < std::min<uint64_t>(count, kMaxVersionRecords); ++i) {
    Elf64_Verdef vd;
    if (!table.get(off, vd)) return;
    Elf64_Verdaux va;
    if (table.get(off + vd.vd_aux, va))
      if (auto name = strings.at(va.vda_name)) visit(vd.vd_ndx, vd.vd_flags, *name);
    if (vd.vd_next == 0) return;
    off += vd.vd_next;
  }
}

}  // namespace dlready
