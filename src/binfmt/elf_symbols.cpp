#include "binfmt/elf_symbols.hpp"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "binfmt/elf_pages.hpp"

namespace dlready {
namespace {

constexpr uint64_t kMaxWindow = 256u << 20;  // a table of libtorch_cuda.so is tens of MB at most
constexpr uint32_t kMaxChain = 1u << 20;     // hash chain steps per lookup, symbols per import scan

struct DynamicTags {
  uint64_t symtab = 0, strtab = 0, strsz = 0, versym = 0, verneed = 0, verneednum = 0, verdef = 0, verdefnum = 0;
  uint64_t gnu_hash = 0, sysv_hash = 0;
};

// ELF's SysV hash (DT_HASH) and the GNU hash (DT_GNU_HASH, djb2), as ld.so computes them.
uint32_t sysv_hash(const std::string& name) {
  uint32_t h = 0;
  for (unsigned char c : name) {
    h = (h << 4) + c;
    uint32_t g = h & 0xf0000000u;
    if (g) h ^= g >> 24;
    h &= ~g;
  }
  return h;
}

uint32_t gnu_hash(const std::string& name) {
  uint32_t h = 5381;
  for (unsigned char c : name) h = h * 33 + c;
  return h;
}

}  // namespace

struct ElfSymbolTable::Tables {
  std::vector<Elf64_Phdr> phdrs;
  DynamicTags tags;
  std::optional<PagedWindow> symbols, versions, gnu, sysv;
  std::optional<StringTable> strings;
  std::map<uint16_t, std::pair<std::string, std::string>> needed;  // vna_other -> (file, version)
  std::map<uint16_t, std::string> defined;                         // vd_ndx -> version

  // Where `va` is in the file and how many bytes its loadable segment has from there.
  std::optional<std::pair<uint64_t, uint64_t>> file_range(uint64_t va) const {
    for (const auto& q : phdrs)
      if (va && q.p_type == PT_LOAD && va >= q.p_vaddr && va - q.p_vaddr < q.p_filesz)
        return std::pair<uint64_t, uint64_t>{q.p_offset + (va - q.p_vaddr), q.p_filesz - (va - q.p_vaddr)};
    return std::nullopt;
  }

  // The bytes from `va` to the end of its segment (at most kMaxWindow), as a window in `slot` (left
  // empty when no segment holds it). PagedWindow holds a reference: built in place.
  void open(std::optional<PagedWindow>& slot, const ByteReader& read, uint64_t va) const {
    if (auto r = file_range(va)) slot.emplace(read, r->first, std::min<uint64_t>(r->second, kMaxWindow));
  }

  std::optional<std::string> name_of(uint32_t index, Elf64_Sym& sym) const {
    if (!symbols || !symbols->get(uint64_t{index} * sizeof(Elf64_Sym), sym)) return std::nullopt;
    return strings->at(sym.st_name);
  }

  // The version index of symbol `index` (1, "global", where the object has no .gnu.version).
  uint16_t version_of(uint32_t index) const {
    uint16_t v = 1;
    if (versions && !versions->get(uint64_t{index} * sizeof(uint16_t), v)) return 1;
    return static_cast<uint16_t>(v & 0x7fff);
  }
};

namespace {

bool read_tags(const ByteReader& read, const std::vector<Elf64_Phdr>& phdrs, DynamicTags& t) {
  for (const auto& p : phdrs) {
    if (p.p_type != PT_DYNAMIC || p.p_filesz > (1u << 20)) continue;
    auto bytes = read(p.p_offset, p.p_filesz);
    if (!bytes) return false;
    for (size_t off = 0; off + sizeof(Elf64_Dyn) <= bytes->size(); off += sizeof(Elf64_Dyn)) {
      Elf64_Dyn d;
      std::memcpy(&d, bytes->data() + off, sizeof d);
      if (d.d_tag == DT_NULL) break;
      switch (d.d_tag) {
        case DT_SYMTAB: t.symtab = d.d_un.d_ptr; break;
        case DT_STRTAB: t.strtab = d.d_un.d_ptr; break;
        case DT_STRSZ: t.strsz = d.d_un.d_val; break;
        case DT_VERSYM: t.versym = d.d_un.d_ptr; break;
        case DT_VERNEED: t.verneed = d.d_un.d_ptr; break;
        case DT_VERNEEDNUM: t.verneednum = d.d_un.d_val; break;
        case DT_VERDEF: t.verdef = d.d_un.d_ptr; break;
        case DT_VERDEFNUM: t.verdefnum = d.d_un.d_val; break;
        case DT_GNU_HASH: t.gnu_hash = d.d_un.d_ptr; break;
        case DT_HASH: t.sysv_hash = d.d_un.d_ptr; break;
        default: break;
      }
    }
    return t.symtab && t.strtab && t.strsz;
  }
  return false;
}

}  // namespace

ElfSymbolTable::ElfSymbolTable(ByteReader read) : read_(std::move(read)) {
  Elf64_Ehdr eh;
  if (!read_struct(read_, 0, eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0)
    return;
  auto t = std::make_unique<Tables>();
  auto ph = read_(eh.e_phoff, uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr));
  if (!ph || ph->size() < uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr)) return;
  t->phdrs.resize(eh.e_phnum);
  std::memcpy(t->phdrs.data(), ph->data(), ph->size());
  if (!read_tags(read_, t->phdrs, t->tags)) return;
  auto strtab = t->file_range(t->tags.strtab);
  if (!strtab) return;
  t->strings.emplace(read_, strtab->first, std::min({t->tags.strsz, strtab->second, kMaxWindow}));
  t->open(t->symbols, read_, t->tags.symtab);
  t->open(t->versions, read_, t->tags.versym);
  t->open(t->gnu, read_, t->tags.gnu_hash);
  t->open(t->sysv, read_, t->tags.sysv_hash);
  std::optional<PagedWindow> needs, defs;
  t->open(needs, read_, t->tags.verneed);
  t->open(defs, read_, t->tags.verdef);
  if (needs)
    walk_version_needs(*needs, t->tags.verneednum, *t->strings, [&](uint16_t index, const std::string& file, const std::string& v) {
      t->needed[index] = {file, v};
    });
  if (defs)
    walk_version_defs(*defs, t->tags.verdefnum, *t->strings,
                      [&](uint16_t index, uint16_t, const std::string& v) { t->defined[index] = v; });
  t_ = std::move(t);
}

ElfSymbolTable::~ElfSymbolTable() = default;

std::vector<VersionedImport> ElfSymbolTable::imports(const std::vector<std::string>& files, size_t limit) const {
  std::vector<VersionedImport> out;
  if (!t_ || !t_->symbols) return out;
  std::map<uint16_t, const std::pair<std::string, std::string>*> wanted;
  for (const auto& [index, need] : t_->needed)
    if (std::find(files.begin(), files.end(), need.first) != files.end()) wanted[index] = &need;
  if (wanted.empty()) return out;
  // With a GNU hash table, the linker puts the symbols it does not hash (the undefined ones) first,
  // below symoffset; with DT_HASH alone, nchain counts them all.
  uint32_t count = 0;
  uint32_t header[4];
  if (t_->gnu && t_->gnu->get(0, header)) count = header[1];
  else if (t_->sysv && t_->sysv->get(0, header)) count = header[1];
  for (uint32_t i = 1; i < std::min(count, kMaxChain) && out.size() < limit; ++i) {
    Elf64_Sym sym;
    if (!t_->symbols->get(uint64_t{i} * sizeof(Elf64_Sym), sym)) break;
    if (sym.st_shndx != SHN_UNDEF || ELF64_ST_BIND(sym.st_info) == STB_WEAK) continue;
    auto need = wanted.find(t_->version_of(i));
    if (need == wanted.end()) continue;
    if (auto name = t_->strings->at(sym.st_name)) out.push_back({*name, need->second->second, need->second->first});
  }
  return out;
}

std::optional<bool> ElfSymbolTable::defines(const std::string& symbol, const std::string& version) const {
  if (!t_ || !t_->symbols) return std::nullopt;
  auto matches = [&](uint32_t index) {
    Elf64_Sym sym;
    auto name = t_->name_of(index, sym);
    if (!name || *name != symbol || sym.st_shndx == SHN_UNDEF) return false;
    uint16_t v = t_->version_of(index);
    if (v <= 1) return true;  // an unversioned definition binds a reference that is not hidden
    auto def = t_->defined.find(v);
    return def != t_->defined.end() && def->second == version;
  };
  uint32_t header[4];
  if (t_->gnu && t_->gnu->get(0, header)) {
    const uint32_t nbuckets = header[0], symoffset = header[1], bloom_size = header[2];
    if (nbuckets == 0) return false;
    const uint32_t h = gnu_hash(symbol);
    const uint64_t buckets = 16 + uint64_t{bloom_size} * 8, chains = buckets + uint64_t{nbuckets} * 4;
    uint32_t index = 0;
    if (!t_->gnu->get(buckets + uint64_t{h % nbuckets} * 4, index)) return std::nullopt;
    if (index < symoffset) return false;
    for (uint32_t step = 0; step < kMaxChain; ++step, ++index) {
      uint32_t chained = 0;
      if (!t_->gnu->get(chains + uint64_t{index - symoffset} * 4, chained)) return std::nullopt;
      if ((chained | 1) == (h | 1) && matches(index)) return true;
      if (chained & 1) return false;
    }
    return std::nullopt;
  }
  if (t_->sysv && t_->sysv->get(0, header)) {
    const uint32_t nbucket = header[0], nchain = header[1];
    if (nbucket == 0) return false;
    uint32_t index = 0;
    if (!t_->sysv->get(8 + uint64_t{sysv_hash(symbol) % nbucket} * 4, index)) return std::nullopt;
    for (uint32_t step = 0; index != 0 && index < nchain && step < kMaxChain; ++step) {
      if (matches(index)) return true;
      if (!t_->sysv->get(8 + uint64_t{nbucket} * 4 + uint64_t{index} * 4, index)) return std::nullopt;
    }
    return false;
  }
  return std::nullopt;
}

}  // namespace dlready
