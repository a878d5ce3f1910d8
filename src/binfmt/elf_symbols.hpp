// The dynamic symbols ld.so binds by version: the ones an object imports from a named library
// (.dynsym's undefined entries, their .gnu.version index into .gnu.version_r), and whether another
// object defines one, found through its hash table (DT_GNU_HASH, else DT_HASH) as ld.so finds it.
// This is what stops `import torch` with "undefined symbol: __nvJitLinkAddData_12_1, version
// libnvJitLink.so.12" when the loader picks an older copy of a library under the same name.
// Reads through a byte-range callback, a page at a time; garbage is "cannot tell", never a crash.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/byte_reader.hpp"

namespace dlready {

struct VersionedImport {
  std::string symbol, version, file;  // __nvJitLinkAddData_12_1, libnvJitLink.so.12, libnvJitLink.so.12
};

class ElfSymbolTable {
 public:
  explicit ElfSymbolTable(ByteReader read);
  ~ElfSymbolTable();
  ElfSymbolTable(const ElfSymbolTable&) = delete;
  ElfSymbolTable& operator=(const ElfSymbolTable&) = delete;

  // The undefined, non-weak symbols bound with a version needed from one of `files` (names as
  // .gnu.version_r writes them), at most `limit`. Empty when there are none or they cannot be read.
  [[nodiscard]] std::vector<VersionedImport> imports(const std::vector<std::string>& files, size_t limit) const;
  // Whether `symbol` is defined with `version` (or without a version, which ld.so accepts for a
  // reference that is not hidden); nullopt when the object has no hash table that can be read.
  [[nodiscard]] std::optional<bool> defines(const std::string& symbol, const std::string& version) const;

 private:
  struct Tables;
  ByteReader read_;
  std::unique_ptr<Tables> t_;
};

}  // namespace dlready
