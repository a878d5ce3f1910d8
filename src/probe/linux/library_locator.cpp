#include <algorithm>
#include "probe/linux/library_locator.hpp"

#include "core/text.hpp"

namespace dlready {

std::optional<std::string> library_version_from_name(const std::string& file_name) {
  auto pos = file_name.find(".so.");
  if (pos == std::string::npos) return std::nullopt;
  std::string v = file_name.substr(pos + 4);
  if (v.empty() || !std::isdigit(static_cast<unsigned char>(v[0]))) return std::nullopt;
  return v;
}

LibraryLocator::LibraryLocator(const RootFs& fs, std::optional<std::string> ld_library_path,
                               const std::optional<std::string>& machine)
    : fs_(fs) {
  if (ld_library_path) {
    // Empty elements mean the current directory to ld.so; we skip them (no cwd under a root).
    for (const auto& d : split(*ld_library_path, ':')) ld_library_path_.push_back(d);
  }
  if (auto bytes = fs_.read("/etc/ld.so.cache", 64u << 20)) {
    auto parsed = parse_ld_cache(*bytes);
    // A malformed cache is ignored, as ld.so ignores it, and the search goes on.
    cache_ = std::move(parsed.cache);
  }
#if defined(__x86_64__)
  std::string own = "x86_64";
#elif defined(__aarch64__)
  std::string own = "aarch64";
#else
  std::string own;
#endif
  std::string arch = machine == std::string("x86_64") || machine == std::string("aarch64") ? *machine : own;
  std::string t = arch.empty() ? "" : arch + "-linux-gnu";
  cache_flags_ = ld_cache_arch_flags(arch);
  if (!t.empty()) default_dirs_ = {"/lib/" + t, "/usr/lib/" + t};
  for (const char* d : {"/lib64", "/usr/lib64", "/lib", "/usr/lib"}) default_dirs_.push_back(d);
}

void LibraryLocator::describe(LibraryLocation& loc) const {
  loc.real_path = fs_.resolve(*loc.path);
  std::string name = path_basename(loc.real_path.value_or(*loc.path));
  loc.version = library_version_from_name(name);
  const std::string& p = loc.real_path.value_or(*loc.path);
  loc.stub = contains(p, "/stubs/") || contains(*loc.path, "/stubs/");
  loc.compat = contains(p, "/compat/") || contains(*loc.path, "/compat/");
  loc.wsl = starts_with(p, "/usr/lib/wsl/") || starts_with(*loc.path, "/usr/lib/wsl/");
}

std::optional<std::string> LibraryLocator::cache_lookup(const std::string& soname) const {
  if (!cache_) return std::nullopt;
  for (const auto& e : cache_->entries) {
    if (e.soname != soname) continue;
    if (cache_flags_ && (e.flags & 0xff00) != cache_flags_) continue;
    if (!fs_.stat(e.path)) continue;  // stale cache entry: ld.so would fail on it too
    return e.path;
  }
  return std::nullopt;
}

LibraryLocation LibraryLocator::locate(const std::string& soname) const {
  LibraryLocation loc;
  loc.soname = soname;
  for (const auto& dir : ld_library_path_) {
    loc.searched.push_back(dir + " (LD_LIBRARY_PATH)");
    std::string p = path_join(dir, soname);
    if (fs_.stat(p)) {
      loc.path = path_normalize(p);
      loc.found_via = "LD_LIBRARY_PATH";
      describe(loc);
      return loc;
    }
  }
  if (cache_) {
    loc.searched.push_back("/etc/ld.so.cache");
    if (auto p = cache_lookup(soname)) {
      loc.path = *p;
      loc.found_via = "ld.so.cache";
      describe(loc);
      return loc;
    }
  }
  for (const auto& dir : default_dirs_) {
    loc.searched.push_back(dir);
    std::string p = path_join(dir, soname);
    if (fs_.stat(p)) {
      loc.path = p;
      loc.found_via = "default directory";
      describe(loc);
      return loc;
    }
  }
  return loc;
}

}  // namespace dlready
