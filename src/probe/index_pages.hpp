// What a package index really serves of torch: PyPI's simple API (PEP 691 JSON, or PEP 503 HTML
// from a mirror) and PyTorch's own index (PEP 503 HTML, every variant as a +cuXYZ / +cpu local
// label). Read from the wheels' file names — version, variant, Python tag, platform — so that
// `dlready setup` and the doctor's recommendation plan from the releases that exist, not only from
// the tables. Pure: text in, releases out (setup/setup_index fetches and caches the pages; the
// doctor reads that cache: probe_index_cache).
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "facts/facts.hpp"
#include "os/root_fs.hpp"

namespace dlready {

struct WheelName {
  std::string project, version, local;  // "torch", "2.16.0", "cu132" ("" for PyPI's own build)
  std::string python_tag, platform_tag;  // "cp311", "manylinux_2_28_x86_64"
};
// A release's version as an index may name it ("2.16.0", "2.17.0rc1") and a variant label
// ("cu132", "cpu", "rocm6.4", "" for PyPI's): anything else on a page is not a wheel of ours.
bool is_version_text(const std::string& version);
// PyTorch's own index (each variant under it: <this>cu130/).
inline constexpr const char* kPytorchIndex = "https://download.pytorch.org/whl/";
bool is_variant_label(const std::string& label);

// "torch-2.16.0+cu132-cp311-cp311-manylinux_2_28_x86_64.whl" (a URL's %2B for '+' too); nullopt
// for anything that is not a wheel's name.
std::optional<WheelName> parse_wheel_name(const std::string& file_name);

// The wheels' file names a simple-API page lists: PEP 691 JSON ("files": [{"filename"}]) or PEP 503
// HTML (the text of each <a>). Malformed text gives what could be read (nothing, at worst).
std::vector<std::string> simple_index_file_names(const std::string& page);
// The same with each file's sha256 where the page gives it (JSON "hashes", HTML "#sha256="): the
// hash pip checks under --require-hashes. sha256 is "" where the page gives none.
struct IndexFile {
  std::string filename, sha256;
};
std::vector<IndexFile> simple_index_files(const std::string& page);

// `platform`: "linux-x86_64" or "linux-aarch64"; only wheels for it count.
void add_index_page(IndexReleases& into, const std::string& page, const std::string& platform);

// How many (release, labelled variant) pairs `index` lists: a page that adds some is PyTorch's kind.
size_t labelled_wheels(const IndexReleases& index);

// The summary `dlready setup` keeps of what it read (<cache>/dlready/index/releases-<platform>.json):
// written with the day it was read in each source, read back bounded (a damaged one is no fact).
std::string index_summary_json(const IndexReleases& index);
std::optional<IndexReleases> parse_index_summary(const std::string& text);

// That summary under the root (<XDG_CACHE_HOME or HOME/.cache>/dlready/index/), whatever its age:
// the doctor never goes to the network. nullopt when setup never read an index here.
std::optional<IndexReleases> probe_index_cache(const RootFs& fs, const EnvFacts& env, const std::string& platform);

}  // namespace dlready
