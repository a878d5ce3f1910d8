// Mach-O files as the macOS scenarios need them: a header and the load commands the doctor reads
// (LC_BUILD_VERSION, LC_LOAD_DYLIB, LC_LOAD_WEAK_DYLIB, LC_RPATH), thin or universal; no code.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/little_endian.hpp"

namespace dlready::test {

struct MachOSpec {
  uint32_t cputype = 0x0100000C;  // arm64
  uint32_t filetype = 6;          // a dylib
  std::optional<uint32_t> minos;  // 0x000B0000 = 11.0
  std::vector<std::string> dylibs, weak_dylibs, rpaths;
};

inline std::string macho_string_command(uint32_t cmd, uint32_t name_offset, const std::string& name, const std::string& body) {
  std::string s = body + name + std::string(1, '\0');
  uint32_t size = static_cast<uint32_t>((8 + s.size() + 7) / 8 * 8);
  std::string out;
  put_little_endian<uint32_t>(out, cmd);
  put_little_endian<uint32_t>(out, size);
  (void)name_offset;
  out += s;
  out.resize(size, '\0');
  return out;
}

inline std::string macho_dylib_command(uint32_t cmd, const std::string& name) {
  std::string body;
  put_little_endian<uint32_t>(body, 24);  // name offset
  put_little_endian<uint32_t>(body, 2);   // timestamp
  put_little_endian<uint32_t>(body, 0x10000);
  put_little_endian<uint32_t>(body, 0x10000);
  return macho_string_command(cmd, 24, name, body);
}

inline std::string macho_thin(const MachOSpec& spec) {
  std::vector<std::string> cmds;
  if (spec.minos) {
    std::string c;
    for (uint32_t v : {0x32u, 24u, 1u, *spec.minos, 0x000F0000u, 0u}) put_little_endian<uint32_t>(c, v);
    cmds.push_back(c);
  }
  for (const auto& d : spec.dylibs) cmds.push_back(macho_dylib_command(0xC, d));
  for (const auto& d : spec.weak_dylibs) cmds.push_back(macho_dylib_command(0x80000018, d));
  for (const auto& r : spec.rpaths) {
    std::string body;
    put_little_endian<uint32_t>(body, 12);
    cmds.push_back(macho_string_command(0x8000001C, 12, r, body));
  }
  std::string all;
  for (const auto& c : cmds) all += c;
  std::string out;
  for (uint32_t v : {0xFEEDFACFu, spec.cputype, 0u, spec.filetype, static_cast<uint32_t>(cmds.size()),
                     static_cast<uint32_t>(all.size()), 0u, 0u})
    put_little_endian<uint32_t>(out, v);
  return out + all;
}

inline void put_big_endian32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((v >> shift) & 0xff);
}

// A universal file: the slices at 4 KiB boundaries, as lipo lays them out.
inline std::string macho_fat(const std::vector<MachOSpec>& specs) {
  std::vector<std::string> slices;
  for (const auto& s : specs) slices.push_back(macho_thin(s));
  std::string out;
  put_big_endian32(out, 0xCAFEBABE);
  put_big_endian32(out, static_cast<uint32_t>(slices.size()));
  uint32_t offset = 4096;
  std::vector<uint32_t> offsets;
  for (size_t i = 0; i < slices.size(); ++i) {
    for (uint32_t v : {specs[i].cputype, 0u, offset, static_cast<uint32_t>(slices[i].size()), 12u}) put_big_endian32(out, v);
    offsets.push_back(offset);
    offset += (static_cast<uint32_t>(slices[i].size()) + 4095) / 4096 * 4096;
  }
  for (size_t i = 0; i < slices.size(); ++i) {
    out.resize(offsets[i], '\0');
    out += slices[i];
  }
  return out;
}

}  // namespace dlready::test
