#include "facts/facts_loader.hpp"

#include "facts/fact_json.hpp"

namespace dlready {

const FactTable<Resolution>& resolution_fields() {
  static const FactTable<Resolution> kFields = {
      {"binary", &Resolution::binary},
      {"libraries", +[](const Resolution& r) { return fact_list_json(r.libraries, resolved_library_fields()); }},
  };
  return kFields;
}

const FactTable<ResolvedLibrary>& resolved_library_fields() {
  using R = ResolvedLibrary;
  static const FactTable<R> kFields = {
      {"name", &R::name},
      {"needed_by", &R::needed_by},
      {"path", &R::path},
      {"via", +[](const R& l) { return l.path ? nlohmann::json(l.via) : nlohmann::json(nullptr); }},
      {"version", &R::version},
      {"searched", &R::searched},
      {"later_copies", &R::later_copies},
  };
  return kFields;
}

}  // namespace dlready
