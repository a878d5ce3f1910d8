// What a package index serves of torch, as `dlready setup` last read it.
// Plain data (std::nullopt = unknown); the tables say how each field is written (facts/fact_table.hpp).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "facts/fact_table.hpp"

namespace dlready {

// What a package index serves of torch (probe/index_pages.hpp reads its pages).
struct IndexRelease {
  std::string version;  // "2.16.0" (final releases only: no rc, dev, a, b)
  // variant ("" = the index's unlabelled build, "cpu", "cu132") -> the Pythons it has wheels for
  // on the platform ("3.11"; "*" for a py3-none-any wheel).
  std::map<std::string, std::set<std::string>> pythons;
};

struct IndexReleases {
  std::vector<std::string> sources;   // the pages read ("https://pypi.org/simple/torch/ (cached 2 h ago)")
  std::vector<IndexRelease> releases;  // newest first
  // Where the labelled variants are (<this><variant>/ is one variant's index): the base of the page
  // that listed +cuXYZ / +cpu wheels ("https://download.pytorch.org/whl/"); "" when none did.
  std::string variant_index;
  // The indexes asked that did not answer, as their base ("https://download.pytorch.org/whl/").
  std::vector<std::string> unanswered;
};

const FactTable<IndexReleases>& index_releases_fields();

}  // namespace dlready
