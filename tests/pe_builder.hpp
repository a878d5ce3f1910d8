// The smallest PE image the Windows loader's tables need, written byte by byte: a DOS header, the
// PE and optional headers, one section holding the import and delay-import tables. The PE reader's
// tests and fuzz seeds use it; the suite's mingw-built DLLs (tests/windows/) are the real-compiler
// side.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/little_endian.hpp"

namespace dlready::test {

struct PeSpec {
  uint16_t machine = 0x8664;
  bool pe32_plus = true;
  bool dll = true;
  std::vector<std::string> imports, delay_imports;
};

inline std::string build_pe(const PeSpec& spec) {
  const uint32_t section_rva = 0x1000, section_file = 0x200;
  const uint16_t optional_size = spec.pe32_plus ? 240 : 224;
  // The section: import descriptors, delay descriptors, then the names.
  std::string names;
  std::vector<uint32_t> import_names, delay_names;
  const uint32_t imports_size = 20 * uint32_t(spec.imports.size() + 1);
  const uint32_t delays_size = 32 * uint32_t(spec.delay_imports.size() + 1);
  const uint32_t names_rva = section_rva + imports_size + delays_size;
  for (const auto& n : spec.imports) import_names.push_back(names_rva + uint32_t(names.size())), names += n + '\0';
  for (const auto& n : spec.delay_imports) delay_names.push_back(names_rva + uint32_t(names.size())), names += n + '\0';
  std::string section;
  for (uint32_t rva : import_names) {
    for (int i = 0; i < 3; ++i) put_little_endian<uint32_t>(section, 0);
    put_little_endian<uint32_t>(section, rva);
    put_little_endian<uint32_t>(section, 0);
  }
  section.append(20, '\0');
  for (uint32_t rva : delay_names) {
    put_little_endian<uint32_t>(section, 1);  // attributes: addresses are relative to the image
    put_little_endian<uint32_t>(section, rva);
    section.append(24, '\0');
  }
  section.append(32, '\0');
  section += names;
  section.resize((section.size() + 0x1ff) & ~size_t{0x1ff}, '\0');

  std::string out(0x40, '\0');
  out[0] = 'M', out[1] = 'Z';
  out[0x3c] = 0x40;
  out += std::string("PE\0\0", 4);
  put_little_endian<uint16_t>(out, spec.machine);
  put_little_endian<uint16_t>(out, 1);  // one section
  out.append(12, '\0');
  put_little_endian<uint16_t>(out, optional_size);
  put_little_endian<uint16_t>(out, spec.dll ? 0x2022 : 0x0022);
  std::string opt(optional_size, '\0');
  auto put_at = [&](size_t at, auto value) {
    std::string bytes;
    put_little_endian(bytes, value);
    opt.replace(at, bytes.size(), bytes);
  };
  put_at(0, uint16_t(spec.pe32_plus ? 0x20b : 0x10b));
  const size_t count_at = spec.pe32_plus ? 108 : 92;
  if (spec.pe32_plus) put_at(24, uint64_t{0x180000000});
  else put_at(28, uint32_t{0x10000000});
  put_at(count_at, uint32_t{16});
  put_at(count_at + 4 + 8, section_rva);  // directory 1: imports
  put_at(count_at + 4 + 12, imports_size);
  if (!spec.delay_imports.empty()) {
    put_at(count_at + 4 + 13 * 8, section_rva + imports_size);  // directory 13: delay imports
    put_at(count_at + 4 + 13 * 8 + 4, delays_size);
  }
  out += opt;
  std::string header(".rdata\0\0", 8);
  put_little_endian<uint32_t>(header, uint32_t(section.size()));
  put_little_endian<uint32_t>(header, section_rva);
  put_little_endian<uint32_t>(header, uint32_t(section.size()));
  put_little_endian<uint32_t>(header, section_file);
  header.append(16, '\0');
  out += header;
  out.resize(section_file, '\0');
  return out + section;
}

}  // namespace dlready::test
