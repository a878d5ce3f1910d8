// Fuzzes the ELF reader (dynamic section, section table) and the fat binary scanner on the same
// bytes: both must answer or fail with an error value, never crash or read out of bounds.
#include <cstddef>
#include <cstdint>
#include <string>

#include "binfmt/elf_reader.hpp"
#include "binfmt/fatbin_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  auto read = [&](uint64_t off, size_t len) -> std::optional<std::string> {
    if (off >= bytes.size()) return std::string();
    return bytes.substr(off, len);
  };
  auto e = dlready::parse_elf(read, "input", /*sections=*/true);
  dlready::FatbinArchs archs;
  if (e.info)
    for (const auto& s : e.info->sections)
      if (s.name == ".nv_fatbin") dlready::scan_fatbin_range(read, s.offset, s.size, archs);
  dlready::scan_fatbin_range(read, 0, bytes.size(), archs);  // the raw bytes as one section
  return 0;
}
