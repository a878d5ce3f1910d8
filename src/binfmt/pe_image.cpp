#include "binfmt/pe_image.hpp"

#include <cstdio>

#include "core/little_endian.hpp"
#include "core/status.hpp"

namespace dlready {
namespace {

// What one image may name: beyond these limits a file is not a DLL the loader would take.
constexpr size_t kMaxSections = 96;        // the loader's own limit
constexpr size_t kMaxDescriptors = 4096;   // DLLs named by one image
constexpr size_t kMaxNameLength = 256;     // a DLL's file name (MAX_PATH less a folder)

struct Section {
  uint32_t virtual_address = 0, virtual_size = 0, raw_size = 0, raw_offset = 0;
};

struct Layout {
  std::vector<Section> sections;
  uint64_t image_base = 0;
  uint32_t import_rva = 0, import_size = 0, delay_rva = 0, delay_size = 0;
};

template <class T>
std::optional<T> number_at(const ByteReader& read, uint64_t offset) {
  auto bytes = read(offset, sizeof(T));
  if (!bytes || bytes->size() < sizeof(T)) return std::nullopt;
  return read_little_endian<T>(bytes->data());
}

// The file offset of an address in the loaded image, when a section's file bytes hold it.
std::optional<uint64_t> file_offset(const Layout& layout, uint64_t rva) {
  for (const auto& s : layout.sections) {
    uint64_t span = s.virtual_size ? s.virtual_size : s.raw_size;
    if (rva >= s.virtual_address && rva < uint64_t{s.virtual_address} + span) {
      uint64_t within = rva - s.virtual_address;
      if (within >= s.raw_size) return std::nullopt;  // zero-filled memory, not in the file
      return uint64_t{s.raw_offset} + within;
    }
  }
  return std::nullopt;
}

// A NUL-terminated ASCII name at an address; nullopt when it runs off the file or is not printable.
std::optional<std::string> name_at(const ByteReader& read, const Layout& layout, uint64_t rva) {
  auto offset = file_offset(layout, rva);
  if (!offset) return std::nullopt;
  auto bytes = read(*offset, kMaxNameLength + 1);
  if (!bytes) return std::nullopt;
  auto end = bytes->find('\0');
  if (end == std::string::npos || end == 0) return std::nullopt;
  std::string name = bytes->substr(0, end);
  for (unsigned char c : name)
    if (c < 0x20 || c > 0x7e) return std::nullopt;
  return name;
}

Status read_headers(const ByteReader& read, PeImage& image, Layout& layout) {
  auto mz = read(0, 2);
  if (!mz || *mz != "MZ") return Status::failure("not a Windows executable or DLL (no MZ header)");
  auto pe_offset = number_at<uint32_t>(read, 0x3c);
  auto signature = pe_offset ? read(*pe_offset, 4) : std::nullopt;
  if (!signature || *signature != std::string("PE\0\0", 4))
    return Status::failure("an MZ file without a PE header (a DOS program?)");
  const uint64_t coff = uint64_t{*pe_offset} + 4;
  auto header = read(coff, 20);
  if (!header || header->size() < 20) return Status::failure("the PE header is cut short");
  image.machine = read_little_endian<uint16_t>(header->data());
  const uint16_t section_count = read_little_endian<uint16_t>(header->data() + 2);
  const uint16_t optional_size = read_little_endian<uint16_t>(header->data() + 16);
  image.is_dll = read_little_endian<uint16_t>(header->data() + 18) & 0x2000;
  if (section_count > kMaxSections)
    return Status::failure("the PE header names " + std::to_string(section_count) + " sections");
  const uint64_t optional = coff + 20;
  auto opt = read(optional, optional_size);
  if (!opt || opt->size() < optional_size || optional_size < 2)
    return Status::failure("the PE optional header is cut short");
  const uint16_t magic = read_little_endian<uint16_t>(opt->data());
  if (magic != 0x10b && magic != 0x20b)
    return Status::failure("unknown PE optional header (magic " + std::to_string(magic) + ")");
  image.pe32_plus = magic == 0x20b;
  const size_t count_at = image.pe32_plus ? 108 : 92;  // NumberOfRvaAndSizes; the directories follow it
  if (optional_size >= count_at + 4) {
    layout.image_base = image.pe32_plus ? read_little_endian<uint64_t>(opt->data() + 24)
                                        : read_little_endian<uint32_t>(opt->data() + 28);
    const uint32_t directories = read_little_endian<uint32_t>(opt->data() + count_at);
    auto directory = [&](uint32_t index, uint32_t& rva, uint32_t& size) {
      const size_t at = count_at + 4 + size_t{index} * 8;
      if (index >= directories || at + 8 > optional_size) return;
      rva = read_little_endian<uint32_t>(opt->data() + at);
      size = read_little_endian<uint32_t>(opt->data() + at + 4);
    };
    directory(1, layout.import_rva, layout.import_size);   // IMAGE_DIRECTORY_ENTRY_IMPORT
    directory(13, layout.delay_rva, layout.delay_size);    // IMAGE_DIRECTORY_ENTRY_DELAY_IMPORT
  }
  auto table = read(optional + optional_size, size_t{section_count} * 40);
  if (!table || table->size() < size_t{section_count} * 40)
    return Status::failure("the PE section table is cut short");
  for (uint16_t i = 0; i < section_count; ++i) {
    const char* s = table->data() + size_t{i} * 40;
    layout.sections.push_back({read_little_endian<uint32_t>(s + 12), read_little_endian<uint32_t>(s + 8),
                               read_little_endian<uint32_t>(s + 16), read_little_endian<uint32_t>(s + 20)});
  }
  return {};
}

// The import table: 20-byte descriptors, the DLL's name at +12, ended by a descriptor of zeros.
Status read_imports(const ByteReader& read, const Layout& layout, std::vector<std::string>& out) {
  if (layout.import_rva == 0) return {};
  auto at = file_offset(layout, layout.import_rva);
  if (!at) return Status::failure("the import table lies outside the file");
  for (size_t i = 0; i < kMaxDescriptors; ++i) {
    auto d = read(*at + i * 20, 20);
    if (!d || d->size() < 20) return Status::failure("the import table is cut short");
    if (*d == std::string(20, '\0')) return {};
    auto name = name_at(read, layout, read_little_endian<uint32_t>(d->data() + 12));
    if (!name) return Status::failure("an import names no readable DLL");
    out.push_back(*name);
  }
  return Status::failure("the import table does not end");
}

// The delay-import table: 32-byte descriptors, the name at +4 (an address, not an offset from the
// image's base, when bit 0 of the attributes is clear: Visual C++ 6's layout).
Status read_delay_imports(const ByteReader& read, const Layout& layout,
                          std::vector<std::string>& out) {
  if (layout.delay_rva == 0) return {};
  auto at = file_offset(layout, layout.delay_rva);
  if (!at) return Status::failure("the delay-import table lies outside the file");
  for (size_t i = 0; i < kMaxDescriptors; ++i) {
    auto d = read(*at + i * 32, 32);
    if (!d || d->size() < 32) return Status::failure("the delay-import table is cut short");
    const uint32_t attributes = read_little_endian<uint32_t>(d->data());
    uint64_t name_rva = read_little_endian<uint32_t>(d->data() + 4);
    if (name_rva == 0) return {};
    if (!(attributes & 1)) {
      if (name_rva < layout.image_base)
        return Status::failure("a delay import names no readable DLL");
      name_rva -= layout.image_base;
    }
    auto name = name_at(read, layout, name_rva);
    if (!name) return Status::failure("a delay import names no readable DLL");
    out.push_back(*name);
  }
  return Status::failure("the delay-import table does not end");
}

}  // namespace

PeResult parse_pe(const ByteReader& read) {
  PeResult r;
  PeImage image;
  Layout layout;
  Status read_all = read_headers(read, image, layout);
  if (read_all.ok()) read_all = read_imports(read, layout, image.imports);
  if (read_all.ok()) read_all = read_delay_imports(read, layout, image.delay_imports);
  if (!read_all.ok()) r.error = read_all.error();
  if (r.error.empty()) r.image = std::move(image);
  return r;
}

std::string pe_machine_name(uint16_t machine) {
  switch (machine) {
    case 0x8664: return "x64";
    case 0x14c: return "x86";
    case 0xaa64: return "arm64";
    case 0xa641: return "arm64ec";
    case 0x1c4: return "arm";
  }
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%04x", machine);
  return hex;
}

}  // namespace dlready
