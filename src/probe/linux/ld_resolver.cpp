#include "probe/linux/ld_resolver.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>

#include "binfmt/elf_symbols.hpp"
#include "core/text.hpp"

namespace dlready {
namespace {

struct Object {
  std::string path;    // as found (not symlink-resolved), inside the root
  std::string origin;  // $ORIGIN
  std::optional<std::string> soname;
  std::vector<std::string> names;  // names it was requested by
  std::vector<std::string> needed;
  std::optional<std::string> rpath, runpath;  // rpath only when there is no runpath (glibc)
  bool nodeflib = false;
  int loader = -1;  // index of the object that loaded it
  uint16_t machine = 0;
  std::vector<std::pair<std::string, std::string>> version_needs;
  std::vector<std::string> version_defs;
};

std::string expand_tokens(std::string dir, const std::string& origin) {
  auto replace = [&](const std::string& token, const std::string& value) {
    for (const auto& form : {"${" + token + "}", "$" + token}) {
      // Past each replacement: a folder whose own name holds "$ORIGIN" must not be expanded again.
      for (size_t pos = dir.find(form); pos != std::string::npos; pos = dir.find(form, pos + value.size()))
        dir.replace(pos, form.size(), value);
    }
  };
  replace("ORIGIN", origin);
#if defined(__x86_64__)
  replace("LIB", "lib/x86_64-linux-gnu");
  replace("PLATFORM", "x86_64");
#elif defined(__aarch64__)
  replace("LIB", "lib/aarch64-linux-gnu");
  replace("PLATFORM", "aarch64");
#endif
  return dir;
}

class Walk {
 public:
  Walk(const RootFs& fs, const LibraryLocator& loc, Resolution& res) : fs_(fs), loc_(loc), res_(res) {}

  bool add_root(const std::string& path, bool is_executable) {
    auto elf = read_elf(fs_, path);
    if (!elf.info) {
      res_.error = elf.error;
      return false;
    }
    Object o = make_object(path, *elf.info, -1);
    // The executable's $ORIGIN is where it really is (ld.so asks /proc/self/exe); a library's is
    // the directory it was found in.
    if (is_executable) o.origin = path_dirname(fs_.resolve(path).value_or(path));
    objects_.push_back(o);
    main_ = is_executable ? 0 : -1;
    return true;
  }

  void load_closure() {
    for (size_t i = 0; i < objects_.size(); ++i) {
      auto needed = objects_[i].needed;  // request() may grow objects_
      for (const auto& name : needed) request(name, static_cast<int>(i));
    }
  }

  void request(const std::string& name, int loader) {
    for (const auto& lib : res_.libraries)
      if (lib.name == name) return;  // reported once, like ld.so --list
    ResolvedLibrary r;
    r.name = name;
    r.needed_by = objects_[static_cast<size_t>(loader)].path;
    for (const auto& o : objects_) {
      bool match = (o.soname && *o.soname == name) || std::find(o.names.begin(), o.names.end(), name) != o.names.end();
      if (match) {
        r.path = o.path;
        r.via = "already loaded";
        res_.libraries.push_back(r);
        return;
      }
    }
    if (contains(name, "/")) {
      try_dir_path(r, name, "path in DT_NEEDED");
    } else {
      search(r, name, loader);
    }
    // The interpreter (PT_INTERP) is loaded before anything else; ld.so never searches for it.
    if (starts_with(name, "ld-linux") || starts_with(name, "ld64.so")) r.via = "interpreter";
    res_.libraries.push_back(r);
    if (r.path && r.via != "interpreter") {
      auto elf = read_elf(fs_, *r.path);
      if (elf.info) {
        Object o = make_object(*r.path, *elf.info, loader);
        o.names.push_back(name);
        objects_.push_back(o);
      }
    }
  }

 private:
  Object make_object(const std::string& path, const ElfInfo& e, int loader) {
    Object o;
    o.path = path;
    o.origin = path_dirname(path);
    o.soname = e.soname;
    o.needed = e.needed;
    o.runpath = e.runpath;
    if (!e.runpath) o.rpath = e.rpath;  // "If both RUNPATH and RPATH are given, the latter is ignored."
    o.nodeflib = e.nodeflib;
    o.loader = loader;
    o.machine = e.machine;
    o.version_needs = e.version_needs;
    o.version_defs = e.version_defs;
    return o;
  }

  // A candidate must be an ELF file of the same machine as the binary; others are skipped.
  bool acceptable(const std::string& p) {
    auto m = elf_machine(fs_, p);  // one 64-byte read; fails for missing files too
    return m && (objects_.empty() || *m == objects_[0].machine);
  }

  std::optional<std::string> version_of(const std::string& p) {
    return library_version_from_name(path_basename(fs_.resolve(p).value_or(p)));
  }

  void found(ResolvedLibrary& r, const std::string& p, const std::string& via) {
    r.path = path_normalize(p);
    r.via = via;
    r.version = version_of(p);
  }

  void shadowed(ResolvedLibrary& r, const std::string& p, const std::string& via) {
    auto v = version_of(p);
    r.later_copies.push_back(path_normalize(p) + " (" + via + ")" + (v ? " [" + *v + "]" : ""));
  }

  void try_dir_path(ResolvedLibrary& r, const std::string& p, const std::string& via) {
    if (acceptable(p)) found(r, p, via);
  }

  void try_dirs(ResolvedLibrary& r, const std::vector<std::string>& dirs, const std::string& via) {
    for (const auto& d : dirs) {
      if (d.empty()) continue;
      std::string p = path_join(d, r.name);
      if (!r.path) {
        r.searched.push_back(d + " (" + via + ")");
        if (acceptable(p)) found(r, p, via);
      } else if (acceptable(p) && fs_.resolve(p) != fs_.resolve(*r.path)) {
        shadowed(r, p, via);
      }
    }
  }

  void search(ResolvedLibrary& r, const std::string& name, int loader) {
    const Object& caller = objects_[static_cast<size_t>(loader)];
    // We keep searching after a hit (without changing the result) to list shadowed copies.
    if (!caller.runpath) {
      bool did_main = false;
      for (int l = loader; l >= 0; l = objects_[static_cast<size_t>(l)].loader) {
        const Object& o = objects_[static_cast<size_t>(l)];
        try_dirs(r, expand_search_path(o.rpath, o.origin), "RPATH");
        did_main |= l == main_;
      }
      if (!did_main && main_ >= 0) {
        const Object& m = objects_[static_cast<size_t>(main_)];
        try_dirs(r, expand_search_path(m.rpath, m.origin), "RPATH");
      }
    }
    try_dirs(r, loc_.ld_library_path(), "LD_LIBRARY_PATH");
    try_dirs(r, expand_search_path(caller.runpath, caller.origin), "RUNPATH");
    if (!caller.nodeflib) {
      if (loc_.has_cache()) {
        auto hit = loc_.cache_lookup(name);
        if (!r.path) {
          r.searched.push_back("/etc/ld.so.cache");
          if (hit && acceptable(*hit)) found(r, *hit, "ld.so.cache");
        } else if (hit && fs_.resolve(*hit) != fs_.resolve(*r.path)) {
          shadowed(r, *hit, "ld.so.cache");
        }
      }
      try_dirs(r, loc_.default_dirs(), "default directory");
    }
  }

  const RootFs& fs_;
  const LibraryLocator& loc_;
  Resolution& res_;
  std::vector<Object> objects_;
  int main_ = -1;

 public:
  const std::vector<Object>& objects() const { return objects_; }

  // What ld.so refuses with "version `X' not found": a needed version the loaded provider, which
  // has version definitions, does not define. (A provider with none only draws a warning.)
  void check_versions() {
    // Each name is loaded once (ld.so reuses an object by name or SONAME): one provider per file.
    for (const auto& o : objects_)
      for (const auto& [file, version] : o.version_needs) {
        const Object* p = provider(file);
        if (p && !p->version_defs.empty() &&
            std::find(p->version_defs.begin(), p->version_defs.end(), version) == p->version_defs.end())
          res_.missing_versions.push_back({p->path, version, o.path, ""});
      }
  }

  // What ld.so refuses with "undefined symbol: X, version V": the provider defines V (else
  // check_versions said so) but not X of it: an older copy of the library under the same name
  // (libnvJitLink.so.12 of CUDA 12.1 for a cuSPARSE of 12.4). The C and C++ runtimes' versions are
  // left to check_versions: their symbols are many and a version is added with each.
  void check_symbols() {
    std::map<std::string, std::unique_ptr<ElfSymbolTable>> tables;
    auto table = [&](const std::string& path) -> const ElfSymbolTable& {
      auto& slot = tables[path];
      if (!slot) slot = std::make_unique<ElfSymbolTable>([this, path](uint64_t off, size_t len) { return fs_.read_at(path, off, len); });
      return *slot;
    };
    for (const auto& o : objects_) {
      std::vector<std::string> files;
      for (const auto& [file, version] : o.version_needs) {
        const Object* p = provider(file);
        if (!p || system_runtime(file) || std::find(files.begin(), files.end(), file) != files.end()) continue;
        if (std::find(p->version_defs.begin(), p->version_defs.end(), version) != p->version_defs.end()) files.push_back(file);
      }
      if (files.empty()) continue;
      int missing = 0;
      for (const auto& need : table(o.path).imports(files, kMaxImports)) {
        const Object* p = provider(need.file);
        if (!p || std::find(p->version_defs.begin(), p->version_defs.end(), need.version) == p->version_defs.end()) continue;
        if (table(p->path).defines(need.symbol, need.version) != false) continue;
        res_.missing_versions.push_back({p->path, need.version, o.path, need.symbol});
        if (++missing == kMaxMissingPerObject) break;
      }
    }
  }

 private:
  static constexpr size_t kMaxImports = 1u << 16;
  static constexpr int kMaxMissingPerObject = 8;

  const Object* provider(const std::string& file) const {
    for (const auto& p : objects_)
      if ((p.soname && *p.soname == file) || std::find(p.names.begin(), p.names.end(), file) != p.names.end()) return &p;
    return nullptr;
  }

  static bool system_runtime(const std::string& file) {
    for (const char* prefix : {"libc.so", "libm.so", "libpthread.so", "libdl.so", "librt.so", "ld-linux", "libstdc++.so",
                               "libgcc_s.so", "libresolv.so", "libutil.so"})
      if (starts_with(file, prefix)) return true;
    return false;
  }
};

}  // namespace

Resolution LdResolver::resolve(const std::string& binary) const {
  Resolution res;
  res.binary = binary;
  Walk w(fs_, loc_, res);
  if (!w.add_root(binary, true)) return res;
  w.load_closure();
  w.check_versions();
  w.check_symbols();
  return res;
}

Resolution LdResolver::resolve_library(const std::string& library) const {
  Resolution res;
  res.binary = library;
  Walk w(fs_, loc_, res);
  if (!w.add_root(library, false)) return res;
  w.load_closure();
  for (size_t i = 0; i < w.objects().size(); ++i) {
    auto soname = w.objects()[i].soname;
    if (!soname) continue;
    for (const auto& child : known_dlopen_children(*soname)) w.request(child, static_cast<int>(i));
  }
  w.load_closure();
  w.check_versions();
  w.check_symbols();
  return res;
}

std::vector<std::string> expand_search_path(const std::optional<std::string>& value, const std::string& origin) {
  std::vector<std::string> out;
  if (!value) return out;
  for (const auto& d : split(*value, ':')) out.push_back(expand_tokens(d, origin));
  return out;
}

std::vector<std::string> known_dlopen_children(const std::string& soname) {
  if (soname == "libcudnn.so.9")
    return {"libcudnn_graph.so.9", "libcudnn_engines_precompiled.so.9", "libcudnn_engines_runtime_compiled.so.9",
            "libcudnn_heuristic.so.9", "libcudnn_ops.so.9", "libcudnn_cnn.so.9", "libcudnn_adv.so.9"};
  if (soname == "libcudnn.so.8")
    return {"libcudnn_ops_infer.so.8", "libcudnn_ops_train.so.8", "libcudnn_cnn_infer.so.8", "libcudnn_cnn_train.so.8",
            "libcudnn_adv_infer.so.8", "libcudnn_adv_train.so.8"};
  return {};
}

}  // namespace dlready
