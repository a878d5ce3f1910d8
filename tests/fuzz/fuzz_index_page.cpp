// Fuzzes what `dlready setup` reads from a package index (probe/index_pages): the page as PEP 503
// HTML or PEP 691 JSON, the summary kept of it, and a plan made from what it lists. Any bytes give
// releases whose names are names (never text for a command line), in time linear in the page.
#include <cstddef>
#include <cstdint>
#include <string>

#include "planner/install_plan.hpp"
#include "probe/index_pages.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string page(reinterpret_cast<const char*>(data), size);
  dlready::IndexReleases index;
  dlready::add_index_page(index, page, "linux-x86_64");
  dlready::add_index_page(index, page, "linux-aarch64");
  for (const auto& r : index.releases) {
    if (!dlready::is_version_text(r.version)) __builtin_trap();
    for (const auto& [label, pythons] : r.pythons)
      if (!dlready::is_variant_label(label)) __builtin_trap();
  }
  if (auto summary = dlready::parse_index_summary(page)) index = *summary;
  auto back = dlready::parse_index_summary(dlready::index_summary_json(index));
  if (!back || back->releases.size() != index.releases.size()) __builtin_trap();
  dlready::PlanMachine m;
  m.python = "3.11";
  m.driver = "580.65.06";
  m.gpus = {{9, 0}};
  m.index = index;
  auto plan = dlready::plan_install(m);
  if (plan.ok && plan.requirement.find_first_of(";$`|&<> \n") != std::string::npos) __builtin_trap();
  return 0;
}
