#include "core/capture_manifest.hpp"

#include "core/json_text.hpp"

namespace dlready {

namespace {

using nlohmann::json;

json child_json(const ChildAnswer& c) {
  return {{"end", c.end}, {"code", c.code}, {"elapsed_ms", c.elapsed_ms}, {"values", c.values}};
}

json gpu_code_json(const GpuCode& g) {
  return {{"sass", g.sass}, {"ptx", g.ptx}, {"compressed", g.compressed}, {"error", g.error}};
}

template <class T>
T value_or(const json& j, const char* key, T fallback) {
  auto it = j.find(key);
  if (it == j.end()) return fallback;
  return it->get<T>();
}

ChildAnswer child_from(const json& j) {
  ChildAnswer c;
  c.end = value_or<std::string>(j, "end", "exited");
  c.code = value_or<int>(j, "code", 0);
  c.elapsed_ms = value_or<double>(j, "elapsed_ms", 0);
  c.values = value_or<std::map<std::string, std::string>>(j, "values", {});
  return c;
}

GpuCode gpu_code_from(const std::string& library, const json& j) {
  GpuCode g;
  g.library = library;
  g.sass = value_or<std::vector<int>>(j, "sass", {});
  g.ptx = value_or<std::vector<int>>(j, "ptx", {});
  g.compressed = value_or<bool>(j, "compressed", false);
  g.error = value_or<std::string>(j, "error", "");
  return g;
}

}  // namespace

std::string capture_manifest_json(const CaptureManifest& m) {
  json j = {{"format", m.format},       {"dlready_version", m.dlready_version},
            {"created", m.created},     {"redacted", m.redacted},
            {"environment", m.environment},
            {"user", {{"name", m.user_name}, {"uid", m.uid}, {"gids", m.gids}}}};
  if (m.arch) j["arch"] = *m.arch;
  if (m.own_module) j["own_module"] = *m.own_module;
  j["children"] = json::object();
  for (const auto& [name, c] : m.children) j["children"][name] = child_json(c);
  j["gpu_code"] = json::object();
  for (const auto& [lib, g] : m.gpu_code) j["gpu_code"][lib] = gpu_code_json(g);
  return json_text(j, 2) + "\n";
}

std::optional<CaptureManifest> parse_capture_manifest(const std::string& text, std::string& error) {
  json j = parse_json_bounded(text, &error);
  if (!error.empty()) return std::nullopt;
  if (!j.is_object() || value_or<int>(j, "format", 0) != CaptureManifest::kFormat) {
    error = "not a capture of format " + std::to_string(CaptureManifest::kFormat);
    return std::nullopt;
  }
  try {
    CaptureManifest m;
    m.dlready_version = value_or<std::string>(j, "dlready_version", "");
    m.created = value_or<std::string>(j, "created", "");
    m.redacted = value_or<bool>(j, "redacted", true);
    m.environment = value_or<std::map<std::string, std::string>>(j, "environment", {});
    json user = value_or<json>(j, "user", json::object());
    m.user_name = value_or<std::string>(user, "name", "");
    m.uid = value_or<unsigned>(user, "uid", 0);
    m.gids = value_or<std::vector<unsigned>>(user, "gids", {});
    if (j.contains("arch")) m.arch = j["arch"].get<std::string>();
    if (j.contains("own_module")) m.own_module = j["own_module"].get<std::string>();
    // Named first: a range-for over a temporary's items() would outlive the temporary.
    const json children = value_or<json>(j, "children", json::object()), code = value_or<json>(j, "gpu_code", json::object());
    if (!children.is_object() || !code.is_object()) throw json::type_error::create(302, "children and gpu_code are objects", nullptr);
    for (const auto& [name, c] : children.items()) m.children[name] = child_from(c);
    for (const auto& [lib, g] : code.items()) m.gpu_code[lib] = gpu_code_from(lib, g);
    return m;
  } catch (const json::exception& e) {
    error = std::string("a field has the wrong type (") + e.what() + ")";
    return std::nullopt;
  }
}

}  // namespace dlready
