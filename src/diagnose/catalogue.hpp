// The one catalogue of finding ids: severity, report section, title, and what it means.
// Ids are public API (docs/findings.md is checked against this table by a test).
#pragma once
#include <string>
#include <vector>

#include "facts/findings.hpp"

namespace dlready {

struct CatalogueEntry {
  const char* id;
  Severity severity;
  const char* check;  // report section
  const char* title;
  const char* meaning;  // one paragraph for docs/findings.md
};

const std::vector<CatalogueEntry>& catalogue();
const CatalogueEntry& catalogue_entry(const std::string& id);  // aborts on unknown id (a bug)
// A finding pre-filled from the catalogue.
Finding make_finding(const std::string& id);

// Report sections in print order, with their human names.
struct CheckSection {
  const char* id;
  const char* name;
};
const std::vector<CheckSection>& check_sections();

}  // namespace dlready
