#include "doctor/examine.hpp"

#include "diagnose/rules.hpp"

namespace dlready {

Examination examine(const GatherOptions& options) {
  Examination e;
  auto g = gather_facts(options);
  if (!g.error.empty()) {
    e.error = g.error;
    return e;
  }
  e.facts = std::move(g.facts);
  e.env = std::move(g.env);
  e.user = g.user;
  e.replayed = g.replayed;
  e.redaction = std::move(g.redaction);
  e.report = diagnose(e.facts);
  return e;
}

Examination examine_this_machine() {
  GatherOptions g;
  g.env = process_environment();
  return examine(g);
}

std::string error_findings_line(const Examination& e, const std::string& none) {
  if (!e.error.empty()) return e.error;
  std::string line;
  for (const auto& x : e.report.findings)
    if (x.severity == Severity::error) line += (line.empty() ? "" : "; ") + x.title + " [" + x.id + "]";
  return line.empty() ? none : line;
}

}  // namespace dlready
