// macOS's executable format (Mach-O) as far as dyld and the doctor read it: a thin file or a fat
// (universal) one with a slice per CPU, each slice's CPU type, file type, the minimum macOS it was
// built for (LC_BUILD_VERSION, or LC_VERSION_MIN_MACOSX in older files), the dylibs it loads and
// weak-loads, and its rpaths. Reads through a ByteReader (a header and the load commands: a few
// small reads of a gigabyte dylib); every offset is bounds-checked and garbage is an error value,
// never a crash. Platform-neutral: the macOS doctor reads Python and torch with it, the Linux build
// replays a Mac's capture with it, the fuzzer runs it anywhere.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/byte_reader.hpp"

namespace dlready {

inline constexpr uint32_t kMachOCpuX86_64 = 0x01000007;
inline constexpr uint32_t kMachOCpuArm64 = 0x0100000C;

struct MachOSlice {
  uint32_t cputype = 0;
  uint32_t filetype = 0;             // 2 executable, 6 dylib, 8 bundle (a Python extension)
  std::optional<std::string> minos;  // "11.0", "14.0": the oldest macOS its loader accepts
  std::vector<std::string> dylibs;       // LC_LOAD_DYLIB, LC_REEXPORT_DYLIB
  std::vector<std::string> weak_dylibs;  // LC_LOAD_WEAK_DYLIB (a framework the file runs without)
  std::vector<std::string> rpaths;       // LC_RPATH
};

struct MachOFile {
  bool fat = false;  // a universal file (one slice per CPU)
  std::vector<MachOSlice> slices;
};

struct MachOResult {
  std::optional<MachOFile> file;
  std::string error;  // what is wrong with the file, when `file` is empty
};

[[nodiscard]] MachOResult parse_macho(const ByteReader& read);
// "arm64", "x86_64", "arm64_32", "i386"... or the number in hex.
[[nodiscard]] std::string macho_cpu_name(uint32_t cputype);
// The slice for `cputype`, if the file has one.
[[nodiscard]] const MachOSlice* macho_slice(const MachOFile& file, uint32_t cputype);

}  // namespace dlready
