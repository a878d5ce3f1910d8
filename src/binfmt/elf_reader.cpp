#include "binfmt/elf_reader.hpp"

#include <elf.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "binfmt/elf_pages.hpp"
#include "os/posix_fs.hpp"
#include "core/status.hpp"

namespace dlready {
namespace {

constexpr uint64_t kMaxTable = 64u << 20;

std::optional<std::string> string_at(const std::string& table, uint64_t off) {
  if (off >= table.size()) return std::nullopt;
  size_t end = table.find('\0', off);
  if (end == std::string::npos) return std::nullopt;
  return table.substr(off, end - off);
}

// Program headers: PT_DYNAMIC, and the PT_LOADs to map DT_STRTAB's address
// to a file offset.
Status read_program_headers(const ByteReader& read, const Elf64_Ehdr& eh, std::vector<Elf64_Phdr>& phdrs) {
  if (eh.e_phnum > 0 && eh.e_phentsize != sizeof(Elf64_Phdr)) return Status::failure("unexpected program header size");
  uint64_t ph_bytes = uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr);
  if (ph_bytes > kMaxTable) return Status::failure("program header table too large");
  phdrs.resize(eh.e_phnum);
  if (eh.e_phnum) {
    auto b = read(eh.e_phoff, ph_bytes);
    if (!b || b->size() < ph_bytes) return Status::failure("truncated program header table");
    std::memcpy(phdrs.data(), b->data(), ph_bytes);
  }
  return {};
}

// Symbol versioning (.gnu.version_r / .gnu.version_d, found through DT_VERNEED / DT_VERDEF): the
// versions each needed file must define, and the ones this object defines (elf_pages.hpp walks
// them); versions are advice for a finding, not required.
constexpr uint64_t kMaxVersionBytes = 1u << 20;

void read_version_needs(const PagedWindow& table, uint64_t count, const StringTable& strtab, ElfInfo& info) {
  walk_version_needs(table, count, strtab, [&](uint16_t, const std::string& file, const std::string& version) {
    info.version_needs.emplace_back(file, version);
  });
}

void read_version_defs(const PagedWindow& table, uint64_t count, const StringTable& strtab, ElfInfo& info) {
  walk_version_defs(table, count, strtab, [&](uint16_t, uint16_t flags, const std::string& version) {
    if (!(flags & VER_FLG_BASE)) info.version_defs.push_back(version);
  });
}

// A library needs a few dozen files (libtorch_cuda.so: 20); more than this is no library's.
constexpr size_t kMaxNeeded = 1024;

// The dynamic section's DT_NEEDED, DT_SONAME, DT_RPATH, DT_RUNPATH and DF_1_NODEFLIB into info.
Status read_dynamic(const ByteReader& read, const std::vector<Elf64_Phdr>& phdrs, const Elf64_Phdr& p,
                         ElfInfo& info) {
  auto vaddr_to_offset = [&](uint64_t va) -> std::optional<uint64_t> {
    for (const auto& q : phdrs)
      if (q.p_type == PT_LOAD && va >= q.p_vaddr && va - q.p_vaddr < q.p_filesz) return q.p_offset + (va - q.p_vaddr);
    return std::nullopt;
  };
  // A version table: the bytes from its start to its segment's end, at most kMaxVersionBytes.
  auto version_table = [&](uint64_t va) -> PagedWindow {
    for (const auto& q : phdrs)
      if (q.p_type == PT_LOAD && va >= q.p_vaddr && va - q.p_vaddr < q.p_filesz)
        return PagedWindow(read, q.p_offset + (va - q.p_vaddr),
                           std::min<uint64_t>(q.p_filesz - (va - q.p_vaddr), kMaxVersionBytes));
    return PagedWindow(read, 0, 0);
  };
  if (p.p_filesz > kMaxTable) return Status::failure("dynamic section too large");
  auto dyn_bytes = read(p.p_offset, p.p_filesz);
  if (!dyn_bytes || dyn_bytes->size() < p.p_filesz) return Status::failure("truncated dynamic section");
  size_t n = dyn_bytes->size() / sizeof(Elf64_Dyn);
  std::vector<Elf64_Dyn> dyn(n);
  std::memcpy(dyn.data(), dyn_bytes->data(), n * sizeof(Elf64_Dyn));
  uint64_t strtab = 0, strsz = 0, verneed = 0, verneednum = 0, verdef = 0, verdefnum = 0;
  for (const auto& d : dyn) {
    if (d.d_tag == DT_NULL) break;
    if (d.d_tag == DT_STRTAB) strtab = d.d_un.d_ptr;
    if (d.d_tag == DT_VERNEED) verneed = d.d_un.d_ptr;
    if (d.d_tag == DT_VERNEEDNUM) verneednum = d.d_un.d_val;
    if (d.d_tag == DT_VERDEF) verdef = d.d_un.d_ptr;
    if (d.d_tag == DT_VERDEFNUM) verdefnum = d.d_un.d_val;
    if (d.d_tag == DT_STRSZ) strsz = d.d_un.d_val;
    if (d.d_tag == DT_FLAGS_1 && (d.d_un.d_val & DF_1_NODEFLIB)) info.nodeflib = true;
  }
  if (!strtab || !strsz) return Status::failure("dynamic section without a string table");
  if (strsz > kMaxTable) return Status::failure("dynamic string table too large");
  auto off = vaddr_to_offset(strtab);
  if (!off) return Status::failure("dynamic string table outside every loadable segment");
  auto last = read(*off + strsz - 1, 1);  // the whole table is in the file
  if (!last || last->empty()) return Status::failure("truncated dynamic string table");
  StringTable table(read, *off, strsz);
  size_t needed = 0;
  for (size_t i = 0; i < dyn.size() && dyn[i].d_tag != DT_NULL; ++i) needed += dyn[i].d_tag == DT_NEEDED;
  if (needed > kMaxNeeded)
    return Status::failure(std::to_string(needed) + " DT_NEEDED entries (a library needs a few dozen; more than " +
                           std::to_string(kMaxNeeded) + " are not followed)");
  for (const auto& d : dyn) {
    if (d.d_tag == DT_NULL) break;
    if (d.d_tag != DT_NEEDED && d.d_tag != DT_SONAME && d.d_tag != DT_RPATH && d.d_tag != DT_RUNPATH) continue;
    auto s = table.at(d.d_un.d_val);
    if (!s) return Status::failure("dynamic entry points outside the string table");
    if (d.d_tag == DT_NEEDED) info.needed.push_back(*s);
    if (d.d_tag == DT_SONAME) info.soname = *s;
    if (d.d_tag == DT_RPATH) info.rpath = *s;
    if (d.d_tag == DT_RUNPATH) info.runpath = *s;
  }
  if (verneed && verneednum) read_version_needs(version_table(verneed), verneednum, table, info);
  if (verdef && verdefnum) read_version_defs(version_table(verdef), verdefnum, table, info);
  return {};
}

// The section table (for .nv_fatbin and friends); absent in stripped-of-sections files.
Status read_sections(const ByteReader& read, const Elf64_Ehdr& eh, ElfInfo& info) {
  if (eh.e_shnum == 0 || eh.e_shoff == 0) return {};
  if (eh.e_shentsize != sizeof(Elf64_Shdr)) return Status::failure("unexpected section header size");
  uint64_t sh_bytes = uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr);
  if (sh_bytes > kMaxTable) return Status::failure("section header table too large");
  auto b = read(eh.e_shoff, sh_bytes);
  if (!b || b->size() < sh_bytes) return Status::failure("truncated section header table");
  std::vector<Elf64_Shdr> sh(eh.e_shnum);
  std::memcpy(sh.data(), b->data(), sh_bytes);
  if (eh.e_shstrndx >= eh.e_shnum || sh[eh.e_shstrndx].sh_size > kMaxTable) return {};
  auto names = read(sh[eh.e_shstrndx].sh_offset, sh[eh.e_shstrndx].sh_size);
  if (!names) return {};
  for (const auto& s : sh) {
    ElfSection sec;
    sec.name = string_at(*names, s.sh_name).value_or("");
    sec.offset = s.sh_offset;
    sec.size = s.sh_size;
    sec.type = s.sh_type;
    info.sections.push_back(sec);
  }
  return {};
}

}  // namespace

ElfResult parse_elf(const ByteReader& read, const std::string& name, bool sections) {
  auto fail = [&](const std::string& what) { return ElfResult{std::nullopt, name + ": " + what}; };
  Elf64_Ehdr eh;
  if (!read_struct(read, 0, eh)) return fail("too short for an ELF header");
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) return fail("not an ELF file");
  if (eh.e_ident[EI_CLASS] != ELFCLASS64) return fail("not a 64-bit ELF file");
  if (eh.e_ident[EI_DATA] != ELFDATA2LSB) return fail("not a little-endian ELF file");
  ElfInfo info;
  info.machine = eh.e_machine;
  info.type = eh.e_type;
  std::vector<Elf64_Phdr> phdrs;
  if (auto st = read_program_headers(read, eh, phdrs); !st) return fail(st.error());
  for (const auto& p : phdrs)
    if (p.p_type == PT_LOAD && (info.load_align == 0 || p.p_align < info.load_align)) info.load_align = p.p_align;
  for (const auto& p : phdrs) {
    if (p.p_type != PT_DYNAMIC) continue;
    if (auto st = read_dynamic(read, phdrs, p, info); !st) return fail(st.error());
    break;
  }
  if (sections)
    if (auto st = read_sections(read, eh, info); !st) return fail(st.error());
  return {std::move(info), ""};
}

ElfResult read_elf(const RootFs& fs, const std::string& path, bool sections) {
  auto st = fs.stat(path);
  if (!st) return {std::nullopt, path + ": cannot open"};
  if (!S_ISREG(st->mode)) return {std::nullopt, path + ": " + file_kind(st->mode) + ", not a program or library"};
  return parse_elf(fs.reader(path), path, sections);
}

std::optional<uint16_t> elf_machine(const RootFs& fs, const std::string& path) {
  auto b = fs.read_at(path, 0, sizeof(Elf64_Ehdr));
  if (!b || b->size() < sizeof(Elf64_Ehdr)) return std::nullopt;
  Elf64_Ehdr eh;
  std::memcpy(&eh, b->data(), sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_ident[EI_DATA] != ELFDATA2LSB)
    return std::nullopt;
  return eh.e_machine;
}

}  // namespace dlready
