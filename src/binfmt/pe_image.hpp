// Windows' executable format (PE/COFF) as far as the DLL loader reads it: the machine a DLL or .exe
// is built for, and the DLLs it names in its import table (loaded with it: one missing is
// `OSError: [WinError 126]` on `import torch`) and its delay-import table (loaded at the first
// call). Reads through a ByteReader, so torch_cuda.dll's gigabyte costs a few small reads; every
// offset is bounds-checked and garbage is an error value, never a crash. Platform-neutral: the
// Windows doctor reads torch\lib with it, the fuzzer on Linux.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/byte_reader.hpp"

namespace dlready {

struct PeImage {
  uint16_t machine = 0;     // IMAGE_FILE_MACHINE_*: 0x8664 x64, 0x14c x86, 0xaa64 arm64
  bool pe32_plus = false;   // a 64-bit image (PE32+ optional header)
  bool is_dll = false;      // IMAGE_FILE_DLL
  std::vector<std::string> imports;        // as written (the loader compares without case)
  std::vector<std::string> delay_imports;
};

struct PeResult {
  std::optional<PeImage> image;
  std::string error;  // what is wrong with the file, when image is empty
};

PeResult parse_pe(const ByteReader& read);
// "x64", "x86", "arm64", "arm64ec"... or the number in hex.
std::string pe_machine_name(uint16_t machine);

}  // namespace dlready
