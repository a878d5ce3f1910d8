// Fuzzes the ELF reader (dynamic section, section table), its symbol table (versioned imports and
// hash-table lookups, issue 59) and the fat binary scanner on the same bytes: each must answer or
// fail with an error value, never crash, loop or read out of bounds.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "binfmt/elf_reader.hpp"
#include "binfmt/elf_symbols.hpp"
#include "binfmt/fatbin_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  auto read = [&](uint64_t off, size_t len) -> std::optional<std::string> {
    if (off >= bytes.size()) return std::string();
    return bytes.substr(off, len);
  };
  auto e = dlready::parse_elf(read, "input", /*sections=*/true);
  dlready::ElfSymbolTable symbols(read);
  std::vector<std::string> files;
  if (e.info)
    for (const auto& [file, version] : e.info->version_needs) files.push_back(file);
  for (const auto& need : symbols.imports(files, 64)) static_cast<void>(symbols.defines(need.symbol, need.version));
  static_cast<void>(symbols.defines("__nvJitLinkAddData_12_1", "libnvJitLink.so.12"));
  dlready::FatbinArchs archs;
  if (e.info)
    for (const auto& s : e.info->sections)
      if (s.name == ".nv_fatbin") dlready::scan_fatbin_range(read, s.offset, s.size, archs);
  dlready::scan_fatbin_range(read, 0, bytes.size(), archs);  // the raw bytes as one section
  return 0;
}
