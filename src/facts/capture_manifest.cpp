#include "facts/capture_manifest.hpp"

#include <algorithm>
#include <cstdint>

#include "core/json_text.hpp"
#include "core/text.hpp"

namespace dlready {

namespace {

using nlohmann::json;

json child_json(const ChildAnswer& c) {
  return {{"end", c.end}, {"code", c.code}, {"elapsed_ms", c.elapsed_ms}, {"values", c.values}};
}

json gpu_code_json(const GpuCode& g) {
  return {{"sass", g.sass}, {"ptx", g.ptx}, {"compressed", g.compressed}, {"error", g.error}};
}

// A manifest is read strictly: a field of the wrong type stops the replay with one line that names
// it (nlohmann's own conversions would take true or 1.0 for 1, or throw past the caller).
struct FieldError {
  std::string message;
};

std::string type_of(const json& v) {
  if (v.is_number_integer()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_null()) return "null";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "a list";
  return "an object";
}

[[noreturn]] void wrong(const std::string& field, const json& v, const char* want) {
  throw FieldError{"\"" + printable(field, 200) + "\" is " + type_of(v) + ", not " + want};
}

const json* find(const json& j, const char* key) {
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

std::string text_field(const json& j, const std::string& where, const char* key, std::string fallback) {
  const json* v = find(j, key);
  if (!v) return fallback;
  if (!v->is_string()) wrong(where + key, *v, "a string");
  return v->get<std::string>();
}

int64_t integer_value(const json& v, const std::string& field, int64_t lo, int64_t hi) {
  if (!v.is_number_integer()) wrong(field, v, "an integer");
  bool huge = v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX);
  int64_t n = huge ? 0 : v.get<int64_t>();
  if (huge || n < lo || n > hi) throw FieldError{"\"" + printable(field, 200) + "\" is " + v.dump() + ", out of range"};
  return n;
}

int64_t integer_field(const json& j, const std::string& where, const char* key, int64_t fallback, int64_t lo, int64_t hi) {
  const json* v = find(j, key);
  return v ? integer_value(*v, where + key, lo, hi) : fallback;
}

double number_field(const json& j, const std::string& where, const char* key, double fallback) {
  const json* v = find(j, key);
  if (!v) return fallback;
  if (!v->is_number()) wrong(where + key, *v, "a number");
  return v->get<double>();
}

bool bool_field(const json& j, const std::string& where, const char* key, bool fallback) {
  const json* v = find(j, key);
  if (!v) return fallback;
  if (!v->is_boolean()) wrong(where + key, *v, "true or false");
  return v->get<bool>();
}

const json& object_field(const json& j, const std::string& where, const char* key) {
  static const json kEmpty = json::object();
  const json* v = find(j, key);
  if (!v) return kEmpty;
  if (!v->is_object()) wrong(where + key, *v, "an object");
  return *v;
}

std::map<std::string, std::string> text_map_field(const json& j, const std::string& where, const char* key) {
  std::map<std::string, std::string> out;
  for (const auto& [name, v] : object_field(j, where, key).items()) {
    if (!v.is_string()) wrong(where + key + "." + name, v, "a string");
    out[name] = v.get<std::string>();
  }
  return out;
}

template <class T>
std::vector<T> integer_list_field(const json& j, const std::string& where, const char* key, int64_t lo, int64_t hi) {
  std::vector<T> out;
  const json* v = find(j, key);
  if (!v) return out;
  if (!v->is_array()) wrong(where + key, *v, "a list");
  for (size_t i = 0; i < v->size(); ++i)
    out.push_back(static_cast<T>(integer_value((*v)[i], where + key + "[" + std::to_string(i) + "]", lo, hi)));
  return out;
}

ChildAnswer child_from(const std::string& name, const json& j) {
  std::string where = "children." + name + ".";
  if (!j.is_object()) wrong("children." + name, j, "an object");
  ChildAnswer c;
  c.end = text_field(j, where, "end", "exited");
  c.code = static_cast<int>(integer_field(j, where, "code", 0, INT32_MIN, INT32_MAX));
  c.elapsed_ms = number_field(j, where, "elapsed_ms", 0);
  c.values = text_map_field(j, where, "values");
  return c;
}

GpuCode gpu_code_from(const std::string& library, const json& j) {
  std::string where = "gpu_code." + library + ".";
  if (!j.is_object()) wrong("gpu_code." + library, j, "an object");
  GpuCode g;
  g.library = library;
  g.sass = integer_list_field<int>(j, where, "sass", 0, 10000);
  g.ptx = integer_list_field<int>(j, where, "ptx", 0, 10000);
  g.compressed = bool_field(j, where, "compressed", false);
  g.error = text_field(j, where, "error", "");
  return g;
}

// The Metal probe's answer: devices with their name and the two flags torch reads, the gates by
// the macOS they mark. At most 64 devices: no Mac has more, and a stranger's list is not endless.
MetalProbe metal_from(const json& j) {
  if (!j.is_object()) wrong("metal", j, "an object");
  MetalProbe p;
  const json* devices = find(j, "devices");
  if (devices && !devices->is_array()) wrong("metal.devices", *devices, "a list");
  if (devices && devices->size() > 64) throw FieldError{"\"metal.devices\" lists more than 64 devices"};
  for (size_t i = 0; devices && i < devices->size(); ++i) {
    const json& d = (*devices)[i];
    std::string where = "metal.devices[" + std::to_string(i) + "].";
    if (!d.is_object()) wrong("metal.devices[" + std::to_string(i) + "]", d, "an object");
    p.devices.push_back({printable(text_field(d, where, "name", ""), 200), bool_field(d, where, "low_power", false),
                         bool_field(d, where, "mac2", false)});
  }
  for (const auto& [macos, v] : object_field(j, "metal.", "mpsgraph_gates").items()) {
    if (!v.is_boolean()) wrong("metal.mpsgraph_gates." + macos, v, "true or false");
    p.mpsgraph_gates[printable(macos, 16)] = v.get<bool>();
  }
  if (find(j, "error")) p.error = printable(text_field(j, "metal.", "error", ""), 400);
  return p;
}

json metal_json(const MetalProbe& p) {
  json devices = json::array();
  for (const auto& d : p.devices) devices.push_back({{"name", d.name}, {"low_power", d.low_power}, {"mac2", d.mac2}});
  json j = {{"devices", devices}, {"mpsgraph_gates", p.mpsgraph_gates}};
  if (p.error) j["error"] = *p.error;
  return j;
}

std::optional<std::string> optional_text(const json& j, const char* key) {
  if (!find(j, key)) return std::nullopt;
  return text_field(j, "", key, "");
}

// ---- A Windows machine's answers (facts/windows_answers.hpp) ----
// Bytes are hex (a DLL's headers are binary; JSON text must be UTF-8); a null answer is "unknown".

std::string hex_of(const std::string& bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) out += digits[c >> 4], out += digits[c & 15];
  return out;
}

std::string bytes_of_hex(const std::string& hex, const std::string& field) {
  auto digit = [&](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    throw FieldError{"\"" + printable(field, 200) + "\" holds a character that is not a hex digit"};
  };
  if (hex.size() % 2) throw FieldError{"\"" + printable(field, 200) + "\" has an odd number of hex digits"};
  std::string out(hex.size() / 2, '\0');
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<char>(digit(hex[2 * i]) * 16 + digit(hex[2 * i + 1]));
  return out;
}

json optional_json(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }

std::optional<std::string> nullable_text(const json& j, const std::string& where, const char* key) {
  const json* v = find(j, key);
  if (!v || v->is_null()) return std::nullopt;
  return text_field(j, where, key, "");
}

const json& list_field(const json& j, const std::string& where, const char* key) {
  static const json kEmpty = json::array();
  const json* v = find(j, key);
  if (!v) return kEmpty;
  if (!v->is_array()) wrong(where + key, *v, "a list");
  return *v;
}

std::vector<std::string> text_list(const json& v, const std::string& field) {
  if (!v.is_array()) wrong(field, v, "a list");
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) wrong(field + "[" + std::to_string(i) + "]", v[i], "a string");
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

json registry_json(const WindowsAnswers& a) {
  json out = json::array();
  for (const auto& [q, v] : a.registry_texts)
    out.push_back({{"hive", std::get<0>(q)}, {"key", std::get<1>(q)}, {"value", std::get<2>(q)}, {"text", optional_json(v)}});
  for (const auto& [q, v] : a.registry_numbers)
    out.push_back({{"hive", std::get<0>(q)}, {"key", std::get<1>(q)}, {"value", std::get<2>(q)},
                   {"number", v ? json(*v) : json(nullptr)}});
  for (const auto& [k, v] : a.registry_subkeys) out.push_back({{"hive", k.first}, {"key", k.second}, {"subkeys", v}});
  for (const auto& [k, v] : a.registry_text_values) {
    json values = json::array();
    for (const auto& [name, text] : v) values.push_back({name, text});
    out.push_back({{"hive", k.first}, {"key", k.second}, {"text_values", values}});
  }
  return out;
}

void registry_entry_from(const json& e, const std::string& where, WindowsAnswers& a) {
  if (!e.is_object()) wrong(where, e, "an object");
  std::string hive = text_field(e, where + ".", "hive", "");
  if (hive != "HKLM" && hive != "HKCU") throw FieldError{"\"" + where + ".hive\" is not HKLM or HKCU"};
  std::string key = text_field(e, where + ".", "key", "");
  if (find(e, "text")) a.registry_texts[{hive, key, text_field(e, where + ".", "value", "")}] = nullable_text(e, where + ".", "text");
  else if (const json* n = find(e, "number"))
    a.registry_numbers[{hive, key, text_field(e, where + ".", "value", "")}] =
        n->is_null() ? std::nullopt : std::optional<uint64_t>(static_cast<uint64_t>(integer_value(*n, where + ".number", 0, INT64_MAX)));
  else if (const json* sub = find(e, "subkeys")) a.registry_subkeys[{hive, key}] = text_list(*sub, where + ".subkeys");
  else {
    auto& values = a.registry_text_values[{hive, key}];
    const json& list = list_field(e, where + ".", "text_values");
    for (size_t i = 0; i < list.size(); ++i) {
      auto pair = text_list(list[i], where + ".text_values[" + std::to_string(i) + "]");
      if (pair.size() != 2) throw FieldError{"\"" + where + ".text_values\" holds an entry that is not [name, text]"};
      values.push_back({pair[0], pair[1]});
    }
  }
}

json dxgi_json(const DxgiAnswer& d) {
  json adapters = json::array();
  for (const auto& x : d.adapters)
    adapters.push_back({{"name", x.name}, {"vendor_id", x.vendor_id}, {"device_id", x.device_id},
                        {"dedicated_memory", x.dedicated_memory ? json(*x.dedicated_memory) : json(nullptr)},
                        {"luid", x.luid}, {"software", x.software}});
  return {{"adapters", adapters}, {"high_performance", optional_json(d.high_performance)},
          {"minimum_power", optional_json(d.minimum_power)}, {"error", optional_json(d.error)}};
}

DxgiAnswer dxgi_from(const json& j) {
  if (!j.is_object()) wrong("windows.dxgi", j, "an object");
  DxgiAnswer d;
  const json& list = list_field(j, "windows.dxgi.", "adapters");
  if (list.size() > 64) throw FieldError{"\"windows.dxgi.adapters\" lists more than 64 adapters"};
  for (size_t i = 0; i < list.size(); ++i) {
    std::string where = "windows.dxgi.adapters[" + std::to_string(i) + "].";
    if (!list[i].is_object()) wrong(where, list[i], "an object");
    DxgiAdapter x;
    x.name = text_field(list[i], where, "name", "");
    x.vendor_id = text_field(list[i], where, "vendor_id", "");
    x.device_id = text_field(list[i], where, "device_id", "");
    if (const json* m = find(list[i], "dedicated_memory"); m && !m->is_null())
      x.dedicated_memory = static_cast<uint64_t>(integer_value(*m, where + "dedicated_memory", 0, INT64_MAX));
    x.luid = text_field(list[i], where, "luid", "");
    x.software = bool_field(list[i], where, "software", false);
    d.adapters.push_back(x);
  }
  d.high_performance = nullable_text(j, "windows.dxgi.", "high_performance");
  d.minimum_power = nullable_text(j, "windows.dxgi.", "minimum_power");
  d.error = nullable_text(j, "windows.dxgi.", "error");
  return d;
}

json system_json(const WindowsSystemInfo& s) {
  json j = json::object();
  if (s.major) j["major"] = *s.major;
  if (s.minor) j["minor"] = *s.minor;
  if (s.build) j["build"] = *s.build;
  if (s.arch) j["arch"] = *s.arch;
  if (s.processors) j["processors"] = *s.processors;
  if (s.memory_bytes) j["memory_bytes"] = *s.memory_bytes;
  return j;
}

WindowsSystemInfo system_from(const json& j) {
  WindowsSystemInfo s;
  const std::string where = "windows.system.";
  auto number = [&](const char* key, int64_t hi) -> std::optional<int64_t> {
    const json* v = find(j, key);
    if (!v) return std::nullopt;
    return integer_value(*v, where + key, 0, hi);
  };
  if (auto v = number("major", UINT32_MAX)) s.major = static_cast<unsigned>(*v);
  if (auto v = number("minor", UINT32_MAX)) s.minor = static_cast<unsigned>(*v);
  if (auto v = number("build", UINT32_MAX)) s.build = static_cast<unsigned>(*v);
  if (auto v = number("processors", 1 << 20)) s.processors = static_cast<int>(*v);
  if (auto v = number("memory_bytes", INT64_MAX)) s.memory_bytes = static_cast<uint64_t>(*v);
  s.arch = nullable_text(j, where, "arch");
  return s;
}

std::map<std::string, bool> bool_map_from(const json& j, const char* key) {
  std::map<std::string, bool> out;
  for (const auto& [path, v] : object_field(j, "windows.", key).items()) {
    if (!v.is_boolean()) wrong(std::string("windows.") + key + "." + path, v, "true or false");
    out[path] = v.get<bool>();
  }
  return out;
}

// A file's bytes as text a person reviewing the capture can read (UTF-8 without control
// characters other than tabs and line ends), else as hex; null when it could not be read.
void put_bytes(json& entry, const std::optional<std::string>& bytes) {
  bool text = bytes && is_valid_utf8(*bytes) &&
              std::none_of(bytes->begin(), bytes->end(), [](char c) {
                return static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\r' && c != '\t';
              });
  if (text) entry["text"] = *bytes;
  else entry["hex"] = bytes ? json(hex_of(*bytes)) : json(nullptr);
}

json windows_files_json(const WindowsAnswers& a) {
  json files = json::array();
  for (const auto& [q, bytes] : a.files) {
    json entry = {{"path", q.first}, {"limit", q.second}};
    put_bytes(entry, bytes);
    files.push_back(entry);
  }
  return files;
}

json windows_ranges_json(const WindowsAnswers& a) {
  json ranges = json::array();
  for (const auto& [path, reads] : a.ranges)
    for (const auto& [at, bytes] : reads)
      ranges.push_back({{"path", path}, {"offset", at.first}, {"length", at.second},
                        {"hex", bytes ? json(hex_of(*bytes)) : json(nullptr)}});
  return ranges;
}

json windows_json(const WindowsAnswers& a) {
  json j = {{"registry", registry_json(a)}, {"exists", a.exists}, {"is_file", a.is_file}, {"on_network", a.on_network}, {"listings", json::object()}, {"files", windows_files_json(a)},
            {"ranges", windows_ranges_json(a)}, {"file_versions", json::object()}, {"system", system_json(a.system)}};
  for (const auto& [dir, names] : a.listings) j["listings"][dir] = names;
  for (const auto& [path, v] : a.file_versions) j["file_versions"][path] = optional_json(v);
  if (a.system_directory) j["system_directory"] = *a.system_directory;
  if (a.windows_directory) j["windows_directory"] = *a.windows_directory;
  if (a.dxgi) j["dxgi"] = dxgi_json(*a.dxgi);
  return j;
}

std::optional<std::string> hex_answer(const json& e, const std::string& where) {
  if (find(e, "text")) return nullable_text(e, where, "text");
  auto hex = nullable_text(e, where, "hex");
  if (!hex) return std::nullopt;
  return bytes_of_hex(*hex, where + "hex");
}

void windows_reads_from(const json& j, WindowsAnswers& a) {
  const json& files = list_field(j, "windows.", "files");
  for (size_t i = 0; i < files.size(); ++i) {
    std::string where = "windows.files[" + std::to_string(i) + "].";
    if (!files[i].is_object()) wrong(where, files[i], "an object");
    uint64_t limit = static_cast<uint64_t>(integer_field(files[i], where, "limit", 0, 0, INT64_MAX));
    a.files[{text_field(files[i], where, "path", ""), limit}] = hex_answer(files[i], where);
  }
  const json& ranges = list_field(j, "windows.", "ranges");
  for (size_t i = 0; i < ranges.size(); ++i) {
    std::string where = "windows.ranges[" + std::to_string(i) + "].";
    if (!ranges[i].is_object()) wrong(where, ranges[i], "an object");
    uint64_t offset = static_cast<uint64_t>(integer_field(ranges[i], where, "offset", 0, 0, INT64_MAX));
    uint64_t length = static_cast<uint64_t>(integer_field(ranges[i], where, "length", 0, 0, INT64_MAX));
    a.ranges[text_field(ranges[i], where, "path", "")][{offset, length}] = hex_answer(ranges[i], where);
  }
}

WindowsAnswers windows_from(const json& j) {
  if (!j.is_object()) wrong("windows", j, "an object");
  WindowsAnswers a;
  const json& registry = list_field(j, "windows.", "registry");
  for (size_t i = 0; i < registry.size(); ++i) registry_entry_from(registry[i], "windows.registry[" + std::to_string(i) + "]", a);
  a.exists = bool_map_from(j, "exists");
  a.is_file = bool_map_from(j, "is_file");
  a.on_network = bool_map_from(j, "on_network");
  for (const auto& [dir, names] : object_field(j, "windows.", "listings").items())
    a.listings[dir] = text_list(names, "windows.listings." + dir);
  for (const auto& [path, v] : object_field(j, "windows.", "file_versions").items()) {
    if (!v.is_null() && !v.is_string()) wrong("windows.file_versions." + path, v, "a string or null");
    a.file_versions[path] = v.is_null() ? std::nullopt : std::optional<std::string>(v.get<std::string>());
  }
  windows_reads_from(j, a);
  a.system_directory = nullable_text(j, "windows.", "system_directory");
  a.windows_directory = nullable_text(j, "windows.", "windows_directory");
  a.system = system_from(object_field(j, "windows.", "system"));
  if (const json* d = find(j, "dxgi")) a.dxgi = dxgi_from(*d);
  return a;
}

CaptureManifest manifest_from(const json& j) {
  CaptureManifest m;
  m.dlready_version = text_field(j, "", "dlready_version", "");
  m.created = text_field(j, "", "created", "");
  m.redacted = bool_field(j, "", "redacted", true);
  m.environment = text_map_field(j, "", "environment");
  const json& user = object_field(j, "", "user");
  m.user_name = text_field(user, "user.", "name", "");
  m.uid = static_cast<unsigned>(integer_field(user, "user.", "uid", 0, 0, UINT32_MAX));
  m.gids = integer_list_field<unsigned>(user, "user.", "gids", 0, UINT32_MAX);
  m.platform = text_field(j, "", "platform", "linux");
  // A platform is a word; anything else in a stranger's file would be printed in an error.
  if (m.platform.empty() || m.platform.size() > 32 ||
      m.platform.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_-") != std::string::npos)
    throw FieldError{"\"platform\" is not a platform's name (linux, windows, macos)"};
  m.arch = optional_text(j, "arch");
  m.own_module = optional_text(j, "own_module");
  for (const auto& [name, c] : object_field(j, "", "children").items()) m.children[name] = child_from(name, c);
  for (const auto& [lib, g] : object_field(j, "", "gpu_code").items()) m.gpu_code[lib] = gpu_code_from(lib, g);
  m.sysctl = text_map_field(j, "", "sysctl");
  if (const json* metal = find(j, "metal")) m.metal = metal_from(*metal);
  if (const json* windows = find(j, "windows")) m.windows = windows_from(*windows);
  return m;
}

}  // namespace

std::string capture_manifest_json(const CaptureManifest& m, const Redactor* redactor) {
  json j = {{"format", m.format},       {"dlready_version", m.dlready_version},
            {"created", m.created},     {"redacted", m.redacted},
            {"environment", m.environment},
            {"user", {{"name", m.user_name}, {"uid", m.uid}, {"gids", m.gids}}}};
  j["platform"] = m.platform;
  if (m.arch) j["arch"] = *m.arch;
  if (m.own_module) j["own_module"] = *m.own_module;
  j["children"] = json::object();
  for (const auto& [name, c] : m.children) j["children"][name] = child_json(c);
  j["gpu_code"] = json::object();
  for (const auto& [lib, g] : m.gpu_code) j["gpu_code"][lib] = gpu_code_json(g);
  if (!m.sysctl.empty()) j["sysctl"] = m.sysctl;
  if (m.metal) j["metal"] = metal_json(*m.metal);
  if (redactor) j = redactor->apply(j);
  // A Windows machine's answers are redacted field by field: a DLL's bytes (hex here) are masked,
  // never edited as text.
  if (m.windows) j["windows"] = windows_json(redactor ? redacted_answers(*m.windows, *redactor) : *m.windows);
  return json_text(j, 2) + "\n";
}

std::optional<CaptureManifest> parse_capture_manifest(const std::string& text, std::string& error) {
  json j = parse_json_bounded(text, &error);
  if (!error.empty()) return std::nullopt;
  if (!j.is_object()) {
    error = "not a capture: the file is " + type_of(j) + ", not an object";
    return std::nullopt;
  }
  try {
    const json* format = find(j, "format");
    if (!format) throw FieldError{"no \"format\""};
    if (integer_field(j, "", "format", 0, INT64_MIN, INT64_MAX) != CaptureManifest::kFormat)
      throw FieldError{"\"format\" is " + printable(format->dump(), 40) + ", not " + std::to_string(CaptureManifest::kFormat)};
    return manifest_from(j);
  } catch (const FieldError& e) {
    error = "not a capture of format " + std::to_string(CaptureManifest::kFormat) + ": " + e.message;
  } catch (const json::exception& e) {  // nothing above converts loosely; kept so that no exception escapes
    error = std::string("a field has the wrong type (") + e.what() + ")";
  }
  return std::nullopt;
}

}  // namespace dlready
