// Renderers: terminal text, JSON and Markdown. They only format; every decision is in diagnose/.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "facts/facts.hpp"
#include "facts/findings.hpp"
#include "planner/install_plan.hpp"

namespace dlready {

struct TextStyle {
  bool color = false;
};

std::string render_text(const Facts& f, const Report& r, const TextStyle& style);
std::string render_json(const Facts& f, const Report& r);  // report_json, printed
nlohmann::json report_json(const Facts& f, const Report& r);  // schema dlready.doctor/1
// `redacted`: what --redact hid (Redactor::summary), said in the report; "" says how to redact.
std::string render_markdown(const Facts& f, const Report& r, const std::string& redacted = "");
// docs/findings.md content, generated from the catalogue.
std::string render_findings_catalogue_markdown();
// The Markdown pieces every Markdown report is made of (text_report.cpp): text read from a machine
// or a stranger as prose (escaped, cut at 4 KiB), a code span that holds any text, a fix (its
// commands in code spans).
std::string md_prose(const std::string& text);
std::string md_code_span(const std::string& text);
std::string md_fix(const std::string& fix);
// A redacted Markdown report's placeholders where Markdown keeps them: "<home-1>" in prose is an
// HTML tag to CommonMark (GitHub drops it), so there it becomes "&lt;home-1&gt;"; in a code span
// or a fenced block it stays as it is (shown literally there).
std::string md_escape_placeholders(const std::string& markdown);

// How a platform's plan says where it installs: ", win_amd64" after the variant, " (PowerShell)"
// after "commands"; empty on Linux.
struct PlanWording {
  std::string platform, shell;
  std::string machine = "this machine";  // "the machine given" when the flags describe another one
};
std::string render_plan_text(const InstallPlan& p, const std::vector<std::string>& seen,
                             const std::vector<std::string>& commands, const PlanWording& words = {});

// The fields of `python -m torch.utils.collect_env`, label and value, in its order (collect_env_fields.cpp).
std::vector<std::pair<std::string, std::string>> collect_env_fields(const Facts& f, const Report& r);

// One-line summaries of the facts of each report section (shared by text and Markdown).
std::vector<std::string> section_facts(const Facts& f, const std::string& section);

}  // namespace dlready
