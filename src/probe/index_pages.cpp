#include "probe/index_pages.hpp"

#include <algorithm>
#include <ctime>

#include "core/json_text.hpp"
#include "core/text.hpp"

namespace dlready {

std::optional<WheelName> parse_wheel_name(const std::string& file_name) {
  std::string name = file_name;
  for (size_t at = name.find("%2B"); at != std::string::npos; at = name.find("%2B")) name.replace(at, 3, "+");
  if (!ends_with(name, ".whl")) return std::nullopt;
  auto parts = split(name.substr(0, name.size() - 4), '-');
  // name-version[-build]-python-abi-platform
  if (parts.size() != 5 && parts.size() != 6) return std::nullopt;
  WheelName w;
  w.project = parts[0];
  std::string version = parts[1];
  if (auto plus = version.find('+'); plus != std::string::npos) {
    w.local = version.substr(plus + 1);
    version.erase(plus);
  }
  w.version = version;
  w.python_tag = parts[parts.size() - 3];
  w.platform_tag = parts.back();
  if (w.project.empty() || w.version.empty() || w.python_tag.empty()) return std::nullopt;
  return w;
}

std::vector<std::string> simple_index_file_names(const std::string& page) {
  std::vector<std::string> out;
  std::string error;
  if (!page.empty() && page.front() == '{') {
    auto j = parse_json_bounded(page, &error);
    if (j.is_object() && j.contains("files") && j["files"].is_array())
      for (const auto& f : j["files"])
        if (f.is_object() && f.contains("filename") && f["filename"].is_string() &&
            !(f.contains("yanked") && f["yanked"].is_boolean() && f["yanked"].get<bool>()))
          out.push_back(f["filename"].get<std::string>());
    return out;
  }
  // PEP 503: <a href="...">FILE</a>; a yanked file carries data-yanked.
  for (size_t at = page.find("<a "); at != std::string::npos; at = page.find("<a ", at + 3)) {
    size_t open_end = page.find('>', at), close = page.find("</a>", at);
    if (open_end == std::string::npos || close == std::string::npos || close < open_end) break;
    if (page.substr(at, open_end - at).find("data-yanked") != std::string::npos) continue;
    out.push_back(trim(page.substr(open_end + 1, close - open_end - 1)));
  }
  return out;
}

namespace {

bool final_release(const std::string& version) {
  for (char c : version)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.')) return false;  // rc, dev, a, b, post
  return !version.empty();
}

bool for_platform(const std::string& tag, const std::string& platform) {
  if (tag == "any") return true;
  std::string arch = platform == "linux-aarch64" ? "aarch64" : "x86_64";
  return (starts_with(tag, "manylinux") || starts_with(tag, "linux")) && ends_with(tag, arch);
}

// "cp311" -> "3.11", "py3" -> "*"; "" for what no CPython of ours runs (cp313t: free-threaded).
std::string python_of(const std::string& tag) {
  if (tag == "py3" || tag == "py2.py3") return "*";
  if (!starts_with(tag, "cp") || tag.size() < 4) return "";
  std::string digits = tag.substr(2);
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return "";
  return digits.substr(0, 1) + "." + digits.substr(1);
}

}  // namespace

size_t labelled_wheels(const IndexReleases& index) {
  size_t n = 0;
  for (const auto& r : index.releases)
    for (const auto& [variant, pythons] : r.pythons) n += !variant.empty();
  return n;
}

void add_index_page(IndexReleases& into, const std::string& page, const std::string& platform) {
  for (const auto& file : simple_index_file_names(page)) {
    auto w = parse_wheel_name(file);
    if (!w || w->project != "torch" || !final_release(w->version) || !for_platform(w->platform_tag, platform)) continue;
    std::string python = python_of(w->python_tag);
    if (python.empty()) continue;
    auto it = std::find_if(into.releases.begin(), into.releases.end(),
                           [&](const IndexRelease& r) { return r.version == w->version; });
    if (it == into.releases.end()) it = into.releases.insert(into.releases.end(), IndexRelease{w->version, {}});
    it->pythons[w->local].insert(python);
  }
  std::sort(into.releases.begin(), into.releases.end(),
            [](const IndexRelease& a, const IndexRelease& b) { return compare_versions(a.version, b.version) > 0; });
}

std::string index_summary_json(const IndexReleases& index) {
  nlohmann::json releases = nlohmann::json::array();
  for (const auto& r : index.releases) releases.push_back({{"version", r.version}, {"variants", r.pythons}});
  const std::string date = utc_now("%Y-%m-%d");
  nlohmann::json sources = nlohmann::json::array();
  for (const auto& s : index.sources)
    sources.push_back(ends_with(s, "(did not answer)") ? s.substr(0, s.find(" (")) + " (did not answer dlready setup on " + date + ")"
                                                         : s.substr(0, s.find(" (")) + " (read by dlready setup on " + date + ")");
  return json_text({{"format", 1}, {"sources", sources}, {"variant_index", index.variant_index}, {"releases", releases}}, 1) + "\n";
}

std::optional<IndexReleases> parse_index_summary(const std::string& text) {
  std::string error;
  auto j = parse_json_bounded(text, &error);
  if (!error.empty() || !j.is_object()) return std::nullopt;
  try {
    if (j.value("format", 0) != 1) return std::nullopt;
    IndexReleases index;
    index.sources = j.at("sources").get<std::vector<std::string>>();
    index.variant_index = j.at("variant_index").get<std::string>();
    for (const auto& r : j.at("releases"))
      index.releases.push_back({r.at("version").get<std::string>(),
                                r.at("variants").get<std::map<std::string, std::set<std::string>>>()});
    return index;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

std::optional<IndexReleases> probe_index_cache(const RootFs& fs, const EnvFacts& env, const std::string& platform) {
  std::string dir = dlready_cache_dir(env.get("XDG_CACHE_HOME"), env.get("HOME"));
  if (dir.empty()) return std::nullopt;
  auto text = fs.read(dir + "/index/releases-" + platform + ".json", 4u << 20);
  return text ? parse_index_summary(*text) : std::nullopt;
}

}  // namespace dlready
