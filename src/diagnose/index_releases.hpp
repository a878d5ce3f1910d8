// What a package index really serves of torch: PyPI's simple API (PEP 691 JSON, or PEP 503 HTML
// from a mirror) and PyTorch's own index (PEP 503 HTML, every variant as a +cuXYZ / +cpu local
// label). Read from the wheels' file names — version, variant, Python tag, platform — so that
// `dlready setup` plans from the releases that exist, not only from its tables. Pure: text in,
// releases out (cli/setup_index fetches and caches the pages).
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace dlready {

struct WheelName {
  std::string project, version, local;  // "torch", "2.16.0", "cu132" ("" for PyPI's own build)
  std::string python_tag, platform_tag;  // "cp311", "manylinux_2_28_x86_64"
};
// "torch-2.16.0+cu132-cp311-cp311-manylinux_2_28_x86_64.whl" (a URL's %2B for '+' too); nullopt
// for anything that is not a wheel's name.
std::optional<WheelName> parse_wheel_name(const std::string& file_name);

// The wheels' file names a simple-API page lists: PEP 691 JSON ("files": [{"filename"}]) or PEP 503
// HTML (the text of each <a>). Malformed text gives what could be read (nothing, at worst).
std::vector<std::string> simple_index_file_names(const std::string& page);

struct IndexRelease {
  std::string version;  // "2.16.0" (final releases only: no rc, dev, a, b)
  // variant ("" = the index's unlabelled build, "cpu", "cu132") -> the Pythons it has wheels for
  // on the platform ("3.11"; "*" for a py3-none-any wheel).
  std::map<std::string, std::set<std::string>> pythons;
};

struct IndexReleases {
  std::vector<std::string> sources;   // the pages read ("https://pypi.org/simple/torch/ (cached 2 h ago)")
  std::vector<IndexRelease> releases;  // newest first
  // The release line's versions on the index ("2.16" -> 2.16.0, 2.16.1); empty when it has none.
  std::vector<const IndexRelease*> line(const std::string& release_line) const;
};

// `platform`: "linux-x86_64" or "linux-aarch64"; only wheels for it count.
void add_index_page(IndexReleases& into, const std::string& page, const std::string& platform);

}  // namespace dlready
