#include "facts/facts_index.hpp"

#include "facts/fact_json.hpp"

namespace dlready {

const FactTable<IndexReleases>& index_releases_fields() {
  using I = IndexReleases;
  static const FactTable<I> kFields = {
      {"sources", &I::sources},
      {"releases",
       +[](const I& index) {
         nlohmann::json releases = nlohmann::json::array();
         for (const auto& r : index.releases) releases.push_back({{"version", r.version}, {"variants", r.pythons}});
         return releases;
       }},
      {"variant_index", &I::variant_index},
      {"unanswered", &I::unanswered},
  };
  return kFields;
}

}  // namespace dlready
