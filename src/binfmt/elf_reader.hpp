// Minimal ELF64 reader: dynamic section (DT_NEEDED, DT_SONAME, DT_RPATH, DT_RUNPATH, DT_FLAGS_1)
// and the section table. Reads through a byte-range callback, so a 1 GB libtorch_cuda.so costs a
// few small reads. Every offset is bounds-checked; garbage is an error value, never a crash.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/byte_reader.hpp"
#include "os/root_fs.hpp"

namespace dlready {

struct ElfSection {
  std::string name;
  uint64_t offset = 0, size = 0;
  uint32_t type = 0;
};

struct ElfInfo {
  uint16_t machine = 0;  // EM_X86_64 = 62, EM_AARCH64 = 183
  uint16_t type = 0;     // ET_EXEC = 2, ET_DYN = 3
  std::optional<std::string> soname, rpath, runpath;
  std::vector<std::string> needed;
  bool nodeflib = false;  // DF_1_NODEFLIB: skip ld.so.cache and default dirs
  std::vector<std::pair<std::string, std::string>> version_needs;  // (needed file, version): GLIBCXX_3.4.30
  std::vector<std::string> version_defs;                            // versions this object defines
  std::vector<ElfSection> sections;
  // The smallest PT_LOAD alignment (0: none): a kernel with larger pages (64K on many Grace systems)
  // refuses to map the object ("ELF load command alignment not page-aligned").
  uint64_t load_align = 0;
};

struct ElfResult {
  std::optional<ElfInfo> info;
  std::string error;
};


// `sections`: also read the section table (a large read on big libraries; the loader needs none).
ElfResult parse_elf(const ByteReader& read, const std::string& name, bool sections = false);
ElfResult read_elf(const RootFs& fs, const std::string& path, bool sections = false);
// The e_machine of an ELF64 little-endian file from its header alone; nullopt when not one.
std::optional<uint16_t> elf_machine(const RootFs& fs, const std::string& path);

}  // namespace dlready
