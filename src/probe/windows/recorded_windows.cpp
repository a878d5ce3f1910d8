// The Windows questions answered from a record: the recording that `dlready capture` wraps around
// the live machine, and the replay of a capture's answers on any build (probe/windows/windows_api.hpp).
#include <cstdint>
#include <memory>
#include <set>

#include "probe/windows/windows_api.hpp"

namespace dlready {

const char* hive_name(RegistryHive hive) { return hive == RegistryHive::current_user ? "HKCU" : "HKLM"; }

FileSource windows_files(const WindowsApi& api) {
  return {[&api](const std::string& path, size_t limit) { return api.read_file(path, limit); },
          [&api](const std::string& path) { return api.path_exists(path); },
          [&api](const std::string& dir) { return api.list_dir(dir); }, '\\'};
}

namespace {

// Every answer of `inner`, also written into the record.
class RecordingWindows final : public WindowsApi {
 public:
  RecordingWindows(const WindowsApi& inner, AccessLog& log) : inner_(inner), log_(log), into_(log.windows) {}

  std::optional<std::string> registry_text(RegistryHive h, const std::string& key, const std::string& value) const override {
    return into_.registry_texts[{hive_name(h), key, value}] = inner_.registry_text(h, key, value);
  }
  std::optional<uint64_t> registry_number(RegistryHive h, const std::string& key, const std::string& value) const override {
    return into_.registry_numbers[{hive_name(h), key, value}] = inner_.registry_number(h, key, value);
  }
  std::vector<std::string> registry_subkeys(RegistryHive h, const std::string& key) const override {
    return into_.registry_subkeys[{hive_name(h), key}] = inner_.registry_subkeys(h, key);
  }
  std::vector<std::pair<std::string, std::string>> registry_text_values(RegistryHive h, const std::string& key) const override {
    return into_.registry_text_values[{hive_name(h), key}] = inner_.registry_text_values(h, key);
  }
  bool path_exists(const std::string& path) const override { return into_.exists[path] = inner_.path_exists(path); }
  bool is_file(const std::string& path) const override { return into_.is_file[path] = inner_.is_file(path); }
  std::optional<std::string> read_file(const std::string& path, size_t limit) const override {
    return into_.files[{path, limit}] = inner_.read_file(path, limit);
  }
  std::vector<std::string> list_dir(const std::string& dir) const override { return into_.listings[dir] = inner_.list_dir(dir); }
  ByteReader file_ranges(const std::string& path) const override {
    ByteReader read = inner_.file_ranges(path);
    auto* ranges = &into_.ranges[path];
    return [read, ranges](uint64_t offset, size_t len) { return (*ranges)[{offset, len}] = read(offset, len); };
  }
  bool on_network(const std::string& path) const override { return into_.on_network[path] = inner_.on_network(path); }
  std::string system_directory() const override { return *(into_.system_directory = inner_.system_directory()); }
  std::string windows_directory() const override { return *(into_.windows_directory = inner_.windows_directory()); }
  std::optional<std::string> file_version(const std::string& path) const override {
    return into_.file_versions[path] = inner_.file_version(path);
  }
  WindowsSystemInfo system_info() const override { return into_.system = inner_.system_info(); }
  DxgiAnswer dxgi() const override { return *(into_.dxgi = inner_.dxgi()); }
  // The children's answers go in the capture's `children`, as on Linux.
  std::optional<ChildResult> driver_child(const std::string& kind, const std::string& dll, int timeout_ms) const override {
    auto r = inner_.driver_child(kind, dll, timeout_ms);
    if (r) log_.children[kind] = child_answer(*r);
    return r;
  }

 private:
  const WindowsApi& inner_;
  AccessLog& log_;
  WindowsAnswers& into_;
};

template <class Map, class Key>
auto recorded(const Map& map, const Key& key, typename Map::mapped_type fallback) {
  auto it = map.find(key);
  return it == map.end() ? fallback : it->second;
}

// A read no capture recorded as such, served from what it holds: the whole file, or a recorded
// read that covers it (one that came back short ended at the file's end, so the part after it is
// the end here too). A capture written by hand gives a DLL's bytes once, at offset 0.
std::optional<std::string> read_within(const std::map<std::pair<uint64_t, uint64_t>, std::optional<std::string>>* ranges,
                                       const std::optional<std::string>& whole, uint64_t offset, size_t len) {
  if (whole) return offset >= whole->size() ? std::string() : whole->substr(offset, len);
  if (!ranges) return std::nullopt;
  for (const auto& [at, bytes] : *ranges) {
    if (!bytes || at.first > offset || offset - at.first > bytes->size()) continue;
    std::string part = bytes->substr(offset - at.first, len);
    bool at_end = bytes->size() < at.second;  // that read reached the end of the file
    if (part.size() == len || at_end) return part;
  }
  return std::nullopt;
}

// A capture's answers; a question the machine was never asked is answered "unknown" (nothing there).
class ReplayedWindows final : public WindowsApi {
 public:
  ReplayedWindows(const WindowsAnswers& answers, const std::map<std::string, ChildAnswer>& children)
      : a_(answers), children_(children) {}

  std::optional<std::string> registry_text(RegistryHive h, const std::string& key, const std::string& value) const override {
    return recorded(a_.registry_texts, WindowsAnswers::RegistryValue{hive_name(h), key, value}, std::nullopt);
  }
  std::optional<uint64_t> registry_number(RegistryHive h, const std::string& key, const std::string& value) const override {
    return recorded(a_.registry_numbers, WindowsAnswers::RegistryValue{hive_name(h), key, value}, std::nullopt);
  }
  std::vector<std::string> registry_subkeys(RegistryHive h, const std::string& key) const override {
    return recorded(a_.registry_subkeys, WindowsAnswers::RegistryKey{hive_name(h), key}, {});
  }
  std::vector<std::pair<std::string, std::string>> registry_text_values(RegistryHive h, const std::string& key) const override {
    return recorded(a_.registry_text_values, WindowsAnswers::RegistryKey{hive_name(h), key}, {});
  }
  // A question a capture holds no answer to is answered from what it holds: a path whose bytes or
  // listing are recorded exists, and so do the folders above it (a capture written by hand need not
  // answer every existence check; a capture made by dlready answers each one as asked).
  bool path_exists(const std::string& path) const override {
    if (auto it = a_.exists.find(path); it != a_.exists.end()) return it->second;
    return is_file(path) || a_.listings.count(path) || !children_of(path).empty();
  }
  bool is_file(const std::string& path) const override {
    if (auto it = a_.is_file.find(path); it != a_.is_file.end()) return it->second;
    return recorded_bytes(path, SIZE_MAX) || a_.ranges.count(path);
  }
  // The read as recorded; else the file's bytes read with another limit, when they fit this one (a
  // capture written by hand gives each file once).
  std::optional<std::string> read_file(const std::string& path, size_t limit) const override {
    if (auto it = a_.files.find({path, uint64_t{limit}}); it != a_.files.end()) return it->second;
    return recorded_bytes(path, limit);
  }
  std::vector<std::string> list_dir(const std::string& dir) const override {
    if (auto it = a_.listings.find(dir); it != a_.listings.end()) return it->second;
    auto names = children_of(dir);
    return {names.begin(), names.end()};
  }
  ByteReader file_ranges(const std::string& path) const override {
    auto it = a_.ranges.find(path);
    const auto* ranges = it == a_.ranges.end() ? nullptr : &it->second;
    std::optional<std::string> whole = read_file(path, SIZE_MAX);
    return [ranges, whole](uint64_t offset, size_t len) -> std::optional<std::string> {
      if (ranges)
        if (auto exact = ranges->find({offset, uint64_t{len}}); exact != ranges->end()) return exact->second;
      return read_within(ranges, whole, offset, len);
    };
  }
  bool on_network(const std::string& path) const override { return recorded(a_.on_network, path, false); }
  std::string system_directory() const override { return a_.system_directory.value_or("C:\\Windows\\System32"); }
  std::string windows_directory() const override { return a_.windows_directory.value_or("C:\\Windows"); }
  std::optional<std::string> file_version(const std::string& path) const override {
    return recorded(a_.file_versions, path, std::nullopt);
  }
  WindowsSystemInfo system_info() const override { return a_.system; }
  DxgiAnswer dxgi() const override {
    if (a_.dxgi) return *a_.dxgi;
    DxgiAnswer none;
    none.error = "DXGI was not asked when the capture was made";
    return none;
  }
  // nullopt: the capture was made with --no-driver-probe, nothing was loaded.
  std::optional<ChildResult> driver_child(const std::string& kind, const std::string&, int) const override {
    auto it = children_.find(kind);
    if (it == children_.end()) return std::nullopt;
    return child_result(it->second);
  }

 private:
  // The bytes of `path` the capture holds, read with any limit, when they fit `limit`.
  std::optional<std::string> recorded_bytes(const std::string& path, size_t limit) const {
    for (auto it = a_.files.lower_bound({path, 0}); it != a_.files.end() && it->first.first == path; ++it)
      if (it->second && it->second->size() <= limit) return it->second;
    return std::nullopt;
  }

  // The names right below `dir` among the paths whose bytes or listings the capture holds.
  std::set<std::string> children_of(const std::string& dir) const {
    std::set<std::string> names;
    const std::string prefix = dir + "\\";
    auto add = [&](const std::string& path) {
      if (path.size() <= prefix.size() || path.compare(0, prefix.size(), prefix) != 0) return;
      names.insert(path.substr(prefix.size(), path.find('\\', prefix.size()) - prefix.size()));
    };
    for (const auto& [q, bytes] : a_.files) add(q.first);
    for (const auto& [path, reads] : a_.ranges) add(path);
    for (const auto& [path, names_there] : a_.listings) add(path);
    return names;
  }

  const WindowsAnswers& a_;
  const std::map<std::string, ChildAnswer>& children_;
};

}  // namespace

std::unique_ptr<WindowsApi> recording_windows(const WindowsApi& inner, AccessLog& into) {
  return std::make_unique<RecordingWindows>(inner, into);
}

std::unique_ptr<WindowsApi> replayed_windows(const WindowsAnswers& answers, const std::map<std::string, ChildAnswer>& children) {
  return std::make_unique<ReplayedWindows>(answers, children);
}

}  // namespace dlready
