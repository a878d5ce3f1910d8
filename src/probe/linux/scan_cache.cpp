#include "probe/linux/scan_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "os/atomic_file.hpp"
#include "os/bounded_file.hpp"
#include "core/json_text.hpp"
#include "os/posix_fs.hpp"
#include "os/root_fs.hpp"
#include "core/text.hpp"

namespace dlready {
namespace {

// 3: one small file per entry (the whole cache in one JSON file, /2, was parsed on every run:
// 24.8 ms and 14 MB with 237 entries). 5: a closure's strings each once (to_json).
constexpr const char* kSchema = "dlready.doctor-cache/5";
constexpr uint64_t kMaxEntryBytes = 4u << 20;
// Bounded: the least recently used entries go once there are more than this many, or more bytes.
constexpr size_t kMaxEntries = 64;
constexpr uint64_t kMaxTotalBytes = 1u << 20;

using nlohmann::json;

// An entry names the same folders and libraries over and over (libtorch_cuda.so's 35 libraries
// each list the same five RPATH folders searched, and the same paths are its inputs): each string
// once in the entry's "strings", everything else an index into it (-1: none). libtorch_cuda.so's
// closure went from 37 KB to 12 KB: parsing it was the doctor's largest single cost (~4 M of 19 M
// instructions, now ~1.5 M).
class StringTable {
 public:
  int64_t operator()(const std::string& s) {
    auto [it, added] = index_.emplace(s, static_cast<int64_t>(strings_.size()));
    if (added) strings_.push_back(s);
    return it->second;
  }
  int64_t operator()(const std::optional<std::string>& s) { return s ? (*this)(*s) : -1; }
  json many(const std::vector<std::string>& list) {
    json out = json::array();
    for (const auto& s : list) out.push_back((*this)(s));
    return out;
  }
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  std::map<std::string, int64_t> index_;
  std::vector<std::string> strings_;
};

// The strings of an entry to_json wrote; a wrong type or an index out of range throws
// json::exception, which the caller takes for a miss.
struct StringsOf {
  const json& strings;
  std::string operator()(const json& index) const { return strings.at(index.get<size_t>()).get<std::string>(); }
  std::optional<std::string> maybe(const json& index) const {
    return index.get<int64_t>() < 0 ? std::nullopt : std::optional<std::string>((*this)(index));
  }
  std::vector<std::string> many(const json& indices) const {
    std::vector<std::string> out;
    for (const auto& i : indices) out.push_back((*this)(i));
    return out;
  }
};

// Every input's file as it was when the entry was written ("inputs": [[path index, identity]]).
bool inputs_unchanged(const json& entry) {
  try {
    const StringsOf str{entry.at("strings")};
    const json& inputs = entry.at("inputs");
    if (!inputs.is_array() || inputs.empty()) return false;
    for (const auto& input : inputs)
      if (input.at(1).get<std::string>() != file_identity(str(input.at(0)))) return false;
    return true;
  } catch (const json::exception&) {
    return false;
  }
}

// `host_inputs` as an entry's "inputs", each path once (a closure lists the same folders searched
// for every library), their paths in `id`.
json inputs_json(const std::vector<std::string>& host_inputs, StringTable& id) {
  json inputs = json::array();
  std::set<int64_t> seen;
  for (const auto& p : host_inputs)
    if (const int64_t i = id(p); seen.insert(i).second) inputs.push_back({i, file_identity(p)});
  return inputs;
}

json to_json(const Resolution& r, StringTable& id) {
  json libs = json::array();
  for (const auto& l : r.libraries)
    libs.push_back({id(l.name), id(l.needed_by), id(l.path), id(l.via), id(l.version), id.many(l.searched), id.many(l.later_copies)});
  json missing = json::array();
  for (const auto& m : r.missing_versions) missing.push_back({id(m.library), id(m.version), id(m.required_by), id(m.symbol)});
  return {{"binary", id(r.binary)}, {"libraries", libs}, {"missing_versions", missing}};
}

Resolution resolution_from(const json& j, const StringsOf& str) {  // throws json::exception on a wrong type
  Resolution r;
  r.binary = str(j.at("binary"));
  for (const auto& l : j.at("libraries")) {
    ResolvedLibrary x;
    x.name = str(l.at(0));
    x.needed_by = str(l.at(1));
    x.path = str.maybe(l.at(2));
    x.via = str(l.at(3));
    x.version = str.maybe(l.at(4));
    x.searched = str.many(l.at(5));
    x.later_copies = str.many(l.at(6));
    r.libraries.push_back(std::move(x));
  }
  for (const auto& m : j.at("missing_versions"))
    r.missing_versions.push_back({str(m.at(0)), str(m.at(1)), str(m.at(2)), str(m.at(3))});
  return r;
}

// FNV-1a, 64 bits: an entry's file name from its kind and key (the file holds the key: a
// collision is a miss, never a wrong answer).
std::string entry_name(const std::string& kind, const std::string& key) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : kind + '\n' + key) h = (h ^ c) * 1099511628211ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return kind + "-" + hex + ".json";
}

// The entry of `kind` for `key` when its file is whole and every input it depended on is
// unchanged; a hit is touched, so the least recently used go first.
std::optional<json> fresh_entry(const std::string& dir, const std::string& kind, const std::string& key) {
  const std::string path = dir + "/" + entry_name(kind, key);
  auto read = read_regular_file(path, kMaxEntryBytes, "a doctor cache entry");
  if (!read.bytes) return std::nullopt;
  auto e = parse_json_bounded(*read.bytes);
  if (!e.is_object() || e.value("schema", "") != kSchema || e.value("key", "") != key || !inputs_unchanged(e))
    return std::nullopt;
  ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
  return e;
}

// Least recently used out until the bounds hold (a file another doctor removes first is skipped).
void prune(const std::string& dir) {
  struct Entry {
    std::string path;
    int64_t used_ns;
    uint64_t bytes;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  for (const auto& name : list_directory(dir)) {
    if (!ends_with(name, ".json")) continue;
    struct stat st {};
    std::string path = dir + "/" + name;
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    entries.push_back({path, st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec, static_cast<uint64_t>(st.st_size)});
    total += static_cast<uint64_t>(st.st_size);
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.used_ns < b.used_ns; });
  for (size_t i = 0; i < entries.size() && (entries.size() - i > kMaxEntries || total > kMaxTotalBytes); ++i) {
    ::unlink(entries[i].path.c_str());
    total -= entries[i].bytes;
  }
}

}  // namespace

std::string file_identity(const std::string& host_path) {
  struct stat st {};
  if (::stat(host_path.c_str(), &st) != 0) return "-";
  return std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec) +
         ":" + std::to_string(st.st_ino) + ":" + std::to_string(st.st_dev);
}

std::string default_scan_cache_file(const std::map<std::string, std::string>& env) {
  auto dir = dlready_cache_dir(env);
  return dir ? *dir + "/doctor-cache" : "";  // "": ScanCache keeps nothing
}

ScanCache::ScanCache(std::string dir) : dir_(std::move(dir)) {
  struct stat st {};
  loaded_ = !dir_.empty() && ::stat(dir_.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::optional<GpuCode> ScanCache::gpu_code(const std::string& host_library) const {
  auto e = dir_.empty() ? std::nullopt : fresh_entry(dir_, "gpu_code", host_library);
  if (!e) return std::nullopt;
  try {
    GpuCode g;
    g.sass = e->at("sass").get<std::vector<int>>();
    g.ptx = e->at("ptx").get<std::vector<int>>();
    g.compressed = e->at("compressed").get<bool>();
    g.error = e->at("error").get<std::string>();
    return g;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

void ScanCache::put_gpu_code(const std::string& host_library, const GpuCode& code) {
  if (dir_.empty()) return;
  StringTable id;
  json inputs = inputs_json({host_library}, id);
  pending_[entry_name("gpu_code", host_library)] = {
      {"schema", kSchema}, {"key", host_library}, {"inputs", inputs}, {"strings", id.strings()},
      {"sass", code.sass}, {"ptx", code.ptx}, {"compressed", code.compressed}, {"error", code.error}};
}

std::optional<Resolution> ScanCache::closure(const std::string& key) const {
  auto e = dir_.empty() ? std::nullopt : fresh_entry(dir_, "closure", key);
  if (!e) return std::nullopt;
  try {
    return resolution_from(e->at("resolution"), StringsOf{e->at("strings")});
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

void ScanCache::put_closure(const std::string& key, const Resolution& r, const std::vector<std::string>& host_inputs) {
  if (dir_.empty()) return;
  StringTable id;
  json inputs = inputs_json(host_inputs, id);
  json resolution = to_json(r, id);
  pending_[entry_name("closure", key)] = {
      {"schema", kSchema}, {"key", key}, {"inputs", inputs}, {"resolution", resolution}, {"strings", id.strings()}};
}

std::optional<std::map<std::string, std::string>> ScanCache::values(const std::string& key) const {
  auto e = dir_.empty() ? std::nullopt : fresh_entry(dir_, "values", key);
  if (!e) return std::nullopt;
  try {
    return e->at("values").get<std::map<std::string, std::string>>();
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

void ScanCache::put_values(const std::string& key, const std::map<std::string, std::string>& values,
                           const std::vector<std::string>& host_inputs) {
  if (dir_.empty()) return;
  StringTable id;
  json inputs = inputs_json(host_inputs, id);
  pending_[entry_name("values", key)] = {
      {"schema", kSchema}, {"key", key}, {"inputs", inputs}, {"strings", id.strings()}, {"values", values}};
}

Status ScanCache::save() const {
  if (dir_.empty() || pending_.empty()) return {};
  // Something else under that name (the one-file cache of earlier versions, junk) gives way.
  struct stat st {};
  if (::lstat(dir_.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) ::unlink(dir_.c_str());
  ::unlink((dir_ + ".json").c_str());  // the one-file cache of earlier versions, beside the folder
  if (auto made = make_directories(dir_); !made) return made;
  for (const auto& [name, entry] : pending_)  // each whole or not at all: a concurrent doctor reads one or the other
    if (auto st2 = write_file_atomically(dir_ + "/" + name, json_text(entry)); !st2) return st2;
  prune(dir_);
  return {};
}

}  // namespace dlready
