#include "facts/capture_manifest.hpp"

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
  return m;
}

}  // namespace

std::string capture_manifest_json(const CaptureManifest& m) {
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
