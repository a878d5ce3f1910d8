#include "probe/scan_cache.hpp"

#include <sys/stat.h>

#include "core/atomic_file.hpp"
#include "core/bounded_file.hpp"
#include "core/json_text.hpp"
#include "core/posix_fs.hpp"
#include "core/root_fs.hpp"
#include "core/text.hpp"

namespace dlready {
namespace {

constexpr const char* kSchema = "dlready.doctor-cache/2";  // 2: closures carry missing_versions
constexpr uint64_t kMaxCacheBytes = 16u << 20;
constexpr size_t kMaxEntries = 256;  // per kind; the oldest go first

using nlohmann::json;

bool inputs_unchanged(const json& entry) {
  const auto& inputs = entry.value("inputs", json::object());
  if (!inputs.is_object() || inputs.empty()) return false;
  for (const auto& [path, id] : inputs.items())
    if (!id.is_string() || id.get<std::string>() != file_identity(path)) return false;
  return true;
}

json to_json(const Resolution& r) {
  json libs = json::array();
  for (const auto& l : r.libraries)
    libs.push_back({{"name", l.name}, {"needed_by", l.needed_by}, {"path", l.path ? json(*l.path) : json(nullptr)},
                    {"via", l.via}, {"version", l.version ? json(*l.version) : json(nullptr)},
                    {"searched", l.searched}, {"later_copies", l.later_copies}});
  json missing = json::array();
  for (const auto& m : r.missing_versions) missing.push_back({m.library, m.version, m.required_by});
  return {{"binary", r.binary}, {"libraries", libs}, {"missing_versions", missing}};
}

std::optional<std::string> opt_string(const json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? std::optional(j[key].get<std::string>()) : std::nullopt;
}

Resolution resolution_from(const json& j) {  // throws json::exception on a wrong type
  Resolution r;
  r.binary = j.at("binary").get<std::string>();
  for (const auto& l : j.at("libraries")) {
    ResolvedLibrary x;
    x.name = l.at("name").get<std::string>();
    x.needed_by = l.at("needed_by").get<std::string>();
    x.path = opt_string(l, "path");
    x.via = l.at("via").get<std::string>();
    x.version = opt_string(l, "version");
    x.searched = l.at("searched").get<std::vector<std::string>>();
    x.later_copies = l.at("later_copies").get<std::vector<std::string>>();
    r.libraries.push_back(x);
  }
  for (const auto& m : j.at("missing_versions"))
    r.missing_versions.push_back({m.at(0).get<std::string>(), m.at(1).get<std::string>(), m.at(2).get<std::string>()});
  return r;
}

// The entry `key` of `data[table]` when every input it depended on is unchanged; else nullptr.
const json* fresh_entry(const json& data, const char* table, const std::string& key) {
  auto t = data.find(table);
  if (t == data.end() || !t->is_object()) return nullptr;
  auto e = t->find(key);
  if (e == t->end() || !e->is_object() || !inputs_unchanged(*e)) return nullptr;
  return &*e;
}

json empty_cache() { return {{"schema", kSchema}, {"gpu_code", json::object()}, {"closures", json::object()}}; }

void put(json& table, const std::string& key, json entry) {
  if (!table.contains(key) && table.size() >= kMaxEntries) table.erase(table.begin());  // bounded: one goes
  table[key] = std::move(entry);
}

}  // namespace

std::string file_identity(const std::string& host_path) {
  struct stat st {};
  if (::stat(host_path.c_str(), &st) != 0) return "-";
  return std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec) +
         ":" + std::to_string(st.st_ino) + ":" + std::to_string(st.st_dev);
}

std::string default_scan_cache_file(const std::map<std::string, std::string>& env) {
  auto get = [&](const char* k) { auto it = env.find(k); return it == env.end() ? std::string() : it->second; };
  // XDG: a relative XDG_CACHE_HOME is invalid and is ignored.
  if (auto xdg = get("XDG_CACHE_HOME"); starts_with(xdg, "/")) return xdg + "/dlready/doctor-cache.json";
  if (auto home = get("HOME"); starts_with(home, "/")) return home + "/.cache/dlready/doctor-cache.json";
  return "";
}

ScanCache::ScanCache(std::string file) : file_(std::move(file)) {
  if (file_.empty()) return;
  auto read = read_regular_file(file_, kMaxCacheBytes, "the doctor's cache");
  if (!read.bytes) return;
  auto j = parse_json_bounded(*read.bytes);
  if (!j.is_object() || j.value("schema", "") != kSchema || !j.value("gpu_code", json()).is_object() ||
      !j.value("closures", json()).is_object())
    return;  // corrupt or another version: start afresh, the next save replaces it
  data_ = std::move(j);
  loaded_ = true;
}

std::optional<GpuCode> ScanCache::gpu_code(const std::string& host_library) const {
  const json* e = loaded_ ? fresh_entry(data_, "gpu_code", host_library) : nullptr;
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
  if (file_.empty()) return;
  if (!loaded_) data_ = empty_cache(), loaded_ = true;
  put(data_["gpu_code"], host_library,
      {{"inputs", {{host_library, file_identity(host_library)}}}, {"sass", code.sass}, {"ptx", code.ptx},
       {"compressed", code.compressed}, {"error", code.error}});
  dirty_ = true;
}

std::optional<Resolution> ScanCache::closure(const std::string& key) const {
  const json* e = loaded_ ? fresh_entry(data_, "closures", key) : nullptr;
  if (!e) return std::nullopt;
  try {
    return resolution_from(e->at("resolution"));
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

void ScanCache::put_closure(const std::string& key, const Resolution& r, const std::vector<std::string>& host_inputs) {
  if (file_.empty()) return;
  if (!loaded_) data_ = empty_cache(), loaded_ = true;
  json inputs = json::object();
  for (const auto& p : host_inputs) inputs[p] = file_identity(p);
  put(data_["closures"], key, {{"inputs", inputs}, {"resolution", to_json(r)}});
  dirty_ = true;
}

Status ScanCache::save() const {
  if (file_.empty() || !dirty_) return {};
  if (auto st = make_directories(path_dirname(file_)); !st) return st;
  return write_file_atomically(file_, json_text(data_));
}

}  // namespace dlready
