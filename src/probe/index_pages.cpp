#include "probe/index_pages.hpp"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <string_view>

#include "core/json_text.hpp"
#include "core/text.hpp"

namespace dlready {

bool is_version_text(const std::string& v) {
  if (v.empty() || v.size() > 32 || !std::isdigit(static_cast<unsigned char>(v[0]))) return false;
  return std::all_of(v.begin(), v.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.'; });
}

bool is_variant_label(const std::string& label) {
  if (label.empty()) return true;  // PyPI's own build
  if (label.size() > 24 || !std::islower(static_cast<unsigned char>(label[0]))) return false;
  return std::all_of(label.begin(), label.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '.';
  });
}

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
  // What reaches a command line ("torch==<version>", "--torch-backend=<label>") is a name, never text.
  if (!is_version_text(w.version) || !is_variant_label(w.local)) return std::nullopt;
  return w;
}

namespace {

// A sha256 as an index gives it: 64 hex digits, lower-cased; none for anything else.
std::optional<std::string> sha256_text(const std::string& s) {
  if (s.size() != 64 || s.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) return std::nullopt;
  return to_lower(s);
}

// The #sha256=<hex> fragment of an <a> element's href (PEP 503), none without one.
std::optional<std::string> href_sha256(std::string_view tag) {
  size_t href = tag.find("href=\"");
  if (href == std::string_view::npos) return std::nullopt;
  size_t end = tag.find('"', href + 6);
  std::string_view value = tag.substr(href + 6, end == std::string_view::npos ? std::string_view::npos : end - href - 6);
  size_t frag = value.find("#sha256=");
  if (frag == std::string_view::npos) return std::nullopt;
  return sha256_text(std::string(value.substr(frag + 8)));
}

}  // namespace

std::vector<IndexFile> simple_index_files(const std::string& page) {
  std::vector<IndexFile> out;
  std::string error;
  if (!page.empty() && page.front() == '{') {
    auto j = parse_json_bounded(page, &error);
    if (j.is_object() && j.contains("files") && j["files"].is_array())
      for (const auto& f : j["files"]) {
        if (!f.is_object() || !f.contains("filename") || !f["filename"].is_string() ||
            (f.contains("yanked") && f["yanked"].is_boolean() && f["yanked"].get<bool>()))
          continue;
        std::string sha;
        if (f.contains("hashes") && f["hashes"].is_object() && f["hashes"].contains("sha256") &&
            f["hashes"]["sha256"].is_string())
          sha = sha256_text(f["hashes"]["sha256"].get<std::string>()).value_or("");
        out.push_back({f["filename"].get<std::string>(), sha});
      }
    return out;
  }
  // PEP 503: <a href="...">FILE</a>; a yanked file carries data-yanked. One pass: each search
  // starts where the last element ended, so a page of openers without ends costs its length once.
  std::string_view text(page);
  size_t at = text.find("<a ");
  while (at != std::string_view::npos) {
    size_t open_end = text.find('>', at);
    if (open_end == std::string_view::npos) break;
    size_t close = text.find("</a>", open_end);
    if (close == std::string_view::npos) break;
    std::string_view tag = text.substr(at, open_end - at);
    // "<a <a <a …>": the last opener before '>' is the element's (the others are text).
    if (size_t inner = tag.rfind("<a "); inner != 0) tag = tag.substr(inner);
    if (tag.find("data-yanked") == std::string_view::npos)
      out.push_back({trim(std::string(text.substr(open_end + 1, close - open_end - 1))), href_sha256(tag).value_or("")});
    at = text.find("<a ", close + 4);
  }
  return out;
}

std::vector<std::string> simple_index_file_names(const std::string& page) {
  std::vector<std::string> out;
  for (auto& f : simple_index_files(page)) out.push_back(std::move(f.filename));
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

// "cp311" -> "3.11", "py3" -> "*"; none for what no CPython of ours runs (cp313t: free-threaded).
std::optional<std::string> python_of(const std::string& tag) {
  if (tag == "py3" || tag == "py2.py3") return "*";
  if (!starts_with(tag, "cp") || tag.size() < 4) return std::nullopt;
  std::string digits = tag.substr(2);
  // "cp3" + a minor of one to three digits; a longer run is no Python (and would not read back from
  // the summary setup keeps: the whole summary would be lost for one bogus wheel).
  if (digits.size() > 4 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return std::nullopt;
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
    std::optional<std::string> python = python_of(w->python_tag);
    if (!python) continue;
    auto it = std::find_if(into.releases.begin(), into.releases.end(),
                           [&](const IndexRelease& r) { return r.version == w->version; });
    if (it == into.releases.end()) it = into.releases.insert(into.releases.end(), IndexRelease{w->version, {}});
    it->pythons[w->local].insert(*python);
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
    for (const auto& r : j.at("releases")) {
      IndexRelease release{r.at("version").get<std::string>(),
                           r.at("variants").get<std::map<std::string, std::set<std::string>>>()};
      // Each name reaches a command line: a summary that holds anything else is no fact.
      if (!is_version_text(release.version)) return std::nullopt;
      for (const auto& [label, pythons] : release.pythons) {
        if (!is_variant_label(label)) return std::nullopt;
        for (const auto& py : pythons)
          if (py != "*" && !is_version_text(py)) return std::nullopt;
      }
      index.releases.push_back(std::move(release));
    }
    return index;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

std::optional<IndexReleases> probe_index_cache(const RootFs& fs, const EnvFacts& env, const std::string& platform) {
  auto dir = dlready_cache_dir(env.get("XDG_CACHE_HOME"), env.get("HOME"));
  if (!dir) return std::nullopt;
  auto text = fs.read(*dir + "/index/releases-" + platform + ".json", 4u << 20);
  auto index = text ? parse_index_summary(*text) : std::nullopt;
  // Another machine's summary (a capture) says which releases exist, never where to install from:
  // a mirror it names could be anyone's, so the advice keeps PyTorch's own index.
  if (index && !fs.is_host_root() && !index->variant_index.empty() &&
      index->variant_index != kPytorchIndex) {
    index->sources.push_back("its mirror " + index->variant_index + " is not used (read under --root " + fs.root() + ")");
    index->variant_index.clear();
  }
  return index;
}

}  // namespace dlready
