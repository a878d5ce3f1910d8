#include "binfmt/macho_reader.hpp"

#include <algorithm>
#include <cstdio>
#include <string_view>

#include "core/little_endian.hpp"

namespace dlready {
namespace {

constexpr uint32_t kMagic64 = 0xFEEDFACF, kMagic32 = 0xFEEDFACE, kFatMagic = 0xCAFEBABE, kFatMagic64 = 0xCAFEBABF;
constexpr uint32_t kLcLoadDylib = 0xC, kLcLoadWeakDylib = 0x80000018, kLcReexportDylib = 0x8000001F;
constexpr uint32_t kLcRpath = 0x8000001C, kLcBuildVersion = 0x32, kLcVersionMinMacosx = 0x24;
constexpr uint32_t kPlatformMacos = 1;
// Real files have a few dozen slices at most and kilobytes of load commands (torch's largest dylib
// has about 4 KiB); far more is a damaged or hostile file, refused before reading it.
constexpr uint32_t kMaxSlices = 16, kMaxCommands = 4096, kMaxCommandBytes = 16u << 20;
// A dylib's or rpath's name is a path (macOS's MAXPATHLEN is 1024), and a real file names a few
// dozen: longer names and more of them are not kept, so a slice holds kilobytes whatever the file.
constexpr size_t kMaxNameBytes = 1024, kMaxNames = 512;

uint32_t big_endian32(const std::string& b, size_t at) {
  return static_cast<uint32_t>(static_cast<unsigned char>(b[at])) << 24 |
         static_cast<uint32_t>(static_cast<unsigned char>(b[at + 1])) << 16 |
         static_cast<uint32_t>(static_cast<unsigned char>(b[at + 2])) << 8 | static_cast<unsigned char>(b[at + 3]);
}

uint64_t big_endian64(const std::string& b, size_t at) {
  return static_cast<uint64_t>(big_endian32(b, at)) << 32 | big_endian32(b, at + 4);
}

// "major.minor" (".patch" when set) from Mach-O's xxxx.yy.zz nibbles.
std::string version_text(uint32_t v) {
  std::string s = std::to_string(v >> 16) + "." + std::to_string((v >> 8) & 0xff);
  if (v & 0xff) s += "." + std::to_string(v & 0xff);
  return s;
}

uint32_t le32(std::string_view b, size_t at) { return read_little_endian<uint32_t>(b.data() + at); }

// A load command's string: at `offset` inside the command, NUL-terminated within it, at most
// kMaxNameBytes (no path is longer).
std::optional<std::string> command_string(std::string_view cmd, uint32_t offset) {
  if (offset < 8 || offset >= cmd.size()) return std::nullopt;
  auto end = cmd.find('\0', offset);
  size_t length = (end == std::string_view::npos ? cmd.size() : end) - offset;
  if (length > kMaxNameBytes) return std::nullopt;
  return std::string(cmd.substr(offset, length));
}

void read_command(std::string_view cmd, uint32_t kind, MachOSlice& s) {
  if (kind == kLcLoadDylib || kind == kLcReexportDylib || kind == kLcLoadWeakDylib || kind == kLcRpath) {
    if (cmd.size() < 12 || s.dylibs.size() + s.weak_dylibs.size() + s.rpaths.size() >= kMaxNames) return;
    auto name = command_string(cmd, le32(cmd, 8));
    if (!name) return;
    (kind == kLcRpath ? s.rpaths : kind == kLcLoadWeakDylib ? s.weak_dylibs : s.dylibs).push_back(std::move(*name));
  } else if (kind == kLcBuildVersion && cmd.size() >= 16 && le32(cmd, 8) == kPlatformMacos) {
    s.minos = version_text(le32(cmd, 12));
  } else if (kind == kLcVersionMinMacosx && cmd.size() >= 16 && !s.minos) {
    s.minos = version_text(le32(cmd, 8));
  }
}

// One thin Mach-O at `base`: its header, then `sizeofcmds` bytes of load commands.
std::optional<MachOSlice> read_thin(const ByteReader& read, uint64_t base, std::string& error) {
  auto head = read(base, 32);
  if (!head || head->size() < 28) {
    error = "too short for a Mach-O header";
    return std::nullopt;
  }
  uint32_t magic = le32(*head, 0);
  if (magic != kMagic64 && magic != kMagic32) {
    error = "not a Mach-O file (magic " + std::to_string(magic) + ")";
    return std::nullopt;
  }
  size_t header_size = magic == kMagic64 ? 32 : 28;
  uint32_t ncmds = le32(*head, 16), sizeofcmds = le32(*head, 20);
  if (ncmds > kMaxCommands || sizeofcmds > kMaxCommandBytes) {
    error = "implausible load commands (" + std::to_string(ncmds) + " commands, " + std::to_string(sizeofcmds) + " bytes)";
    return std::nullopt;
  }
  MachOSlice s;
  s.cputype = le32(*head, 4);
  s.filetype = le32(*head, 12);
  auto cmds = read(base + header_size, sizeofcmds);
  if (!cmds || cmds->size() < sizeofcmds) {
    error = "load commands run past the end of the file";
    return std::nullopt;
  }
  size_t at = 0;
  for (uint32_t i = 0; i < ncmds; ++i) {
    if (at + 8 > cmds->size()) break;  // dyld refuses such a file; the commands read so far stand
    uint32_t kind = le32(*cmds, at), size = le32(*cmds, at + 4);
    if (size < 8 || size > cmds->size() - at) break;
    read_command(std::string_view(*cmds).substr(at, size), kind, s);
    at += size;
  }
  return s;
}

// A universal file: big-endian entries {cputype, cpusubtype, offset, size, align} (64-bit offsets
// and sizes in the 0xCAFEBABF form).
MachOResult read_fat(const ByteReader& read, const std::string& head) {
  MachOResult r;
  bool wide = big_endian32(head, 0) == kFatMagic64;
  uint32_t count = big_endian32(head, 4);
  // Java's class files share 0xCAFEBABE; their next word (a version, 45 and up) is no slice count.
  if (count == 0 || count > kMaxSlices) {
    r.error = count > kMaxSlices && big_endian32(head, 0) == kFatMagic ? "not a Mach-O file (a Java class file?)"
                                                                       : "a universal file with " + std::to_string(count) + " slices";
    return r;
  }
  size_t entry = wide ? 32 : 20;
  auto table = read(8, count * entry);
  if (!table || table->size() < count * entry) {
    r.error = "the universal file's table runs past the end of the file";
    return r;
  }
  MachOFile f;
  f.fat = true;
  std::vector<std::pair<uint64_t, MachOSlice>> read_at;  // slices sharing an offset are read once
  for (uint32_t i = 0; i < count; ++i) {
    size_t at = i * entry;
    uint64_t offset = wide ? big_endian64(*table, at + 8) : big_endian32(*table, at + 8);
    auto same = std::find_if(read_at.begin(), read_at.end(), [&](const auto& p) { return p.first == offset; });
    if (same != read_at.end()) {
      f.slices.push_back(same->second);
      continue;
    }
    std::string error;
    auto slice = read_thin(read, offset, error);
    if (!slice) {
      r.error = "slice " + std::to_string(i + 1) + " (" + macho_cpu_name(big_endian32(*table, at)) + "): " + error;
      return r;
    }
    read_at.emplace_back(offset, *slice);
    f.slices.push_back(std::move(*slice));
  }
  r.file = std::move(f);
  return r;
}

}  // namespace

MachOResult parse_macho(const ByteReader& read) {
  MachOResult r;
  auto head = read(0, 8);
  if (!head || head->size() < 8) {
    r.error = "too short for a Mach-O file";
    return r;
  }
  uint32_t be = big_endian32(*head, 0);
  if (be == kFatMagic || be == kFatMagic64) return read_fat(read, *head);
  std::string error;
  auto slice = read_thin(read, 0, error);
  if (!slice) {
    r.error = error;
    return r;
  }
  r.file = MachOFile{false, {*slice}};
  return r;
}

std::string macho_cpu_name(uint32_t cputype) {
  switch (cputype) {
    case kMachOCpuArm64: return "arm64";
    case kMachOCpuX86_64: return "x86_64";
    case 0x0200000C: return "arm64_32";
    case 7: return "i386";
    case 12: return "arm";
    case 18: return "ppc";
    default: {
      char hex[16];
      std::snprintf(hex, sizeof hex, "0x%x", cputype);
      return hex;
    }
  }
}

const MachOSlice* macho_slice(const MachOFile& file, uint32_t cputype) {
  for (const auto& s : file.slices)
    if (s.cputype == cputype) return &s;
  return nullptr;
}

}  // namespace dlready
