#include "cli/explain_command.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

#include "cli/usage_hints.hpp"
#include "core/json_text.hpp"
#include "core/scan.hpp"
#include "core/text.hpp"
#include "diagnose/catalogue.hpp"
#include "diagnose/error_signatures.hpp"
#include "diagnose/message_finding.hpp"
#include "diagnose/pasted_report.hpp"
#include "diagnose/rules.hpp"
#include "doctor/examine.hpp"
#include "os/bounded_file.hpp"
#include "os/terminal.hpp"
#include "platform/platform_record.hpp"
#include "report/render.hpp"

namespace dlready {

void add_explain_command(CLI::App& app, ExplainArgs& a) {
  auto* cmd = app.get_subcommand("explain");
  cmd->add_option("text", a.text,
                  "The error message (quoted), - for standard input, or a finding id (dlready explain arch-not-supported)");
  cmd->add_option("--from", a.from, "Read the message or traceback from FILE");
  cmd->add_option("--report", a.reports,
                  "A report someone pasted (python -m torch.utils.collect_env's output, with the error): its facts, "
                  "not this machine's, confirm the causes (repeatable)")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);  // one file per --report: the message may follow it
  auto* j = cmd->add_flag("--json", a.json, "Machine-readable (schema dlready.explain/1 in docs/json-schema.md)");
  cmd->add_flag("--markdown", a.markdown, "Markdown, ready to post as the answer to an issue")->excludes(j);
  cmd->add_flag("--no-examine", a.no_examine,
                "Explain from the message alone (it came from another machine); by default the doctor examines this one");
  if (!this_platform().reads_roots) return;
  cmd->add_option("--root", a.root, "Examine the machine under DIR (a capture, a mounted system) instead of this one")
      ->check(CLI::ExistingDirectory);
  cmd->add_flag("--load-root-drivers", a.load_root_drivers, kLoadRootDriversHelp);
}

namespace {

constexpr uint64_t kMaxText = 16u << 20;  // a traceback with its log: a few hundred KiB

void say_error(const std::string& what) { std::fprintf(stderr, "dlready explain: %s\n", what.c_str()); }

const char* mark(Severity s) { return s == Severity::error ? "✗" : s == Severity::warning ? "!" : "i"; }

// Standard input, at most kMaxText bytes; nullopt with `error` beyond.
std::optional<std::string> read_stdin(std::string& error) {
  std::string text;
  char buf[65536];
  while (size_t n = std::fread(buf, 1, sizeof buf, stdin)) {
    text.append(buf, n);
    if (text.size() > kMaxText) {
      error = "standard input holds more than 16 MiB: give the error and its traceback only";
      return std::nullopt;
    }
  }
  return text;
}

// The pasted reports, one after the other; nullopt with `error` for one that cannot be read.
std::optional<std::string> reports_of(const ExplainArgs& a, std::string& error) {
  std::string text;
  for (const auto& file : a.reports) {
    FileBytes f = read_regular_file(file, kMaxText, "a pasted report");
    if (!f.bytes) {
      error = printable(f.error, 400);
      return std::nullopt;
    }
    text += *f.bytes + "\n";
  }
  return text;
}

// The text to explain: the arguments, --from's file, or standard input when it is not a terminal.
std::optional<std::string> text_of(const ExplainArgs& a, std::string& error) {
  if (!a.reports.empty() && a.from.empty() && a.text.empty()) return std::string();  // the reports carry the message
  if (!a.from.empty()) {
    if (!a.text.empty()) {
      error = "give the message as arguments or with --from, not both";
      return std::nullopt;
    }
    FileBytes f = read_regular_file(a.from, kMaxText, "a message or traceback");
    if (!f.bytes) error = printable(f.error, 400);
    return f.bytes;
  }
  if (a.text.size() == 1 && a.text[0] == "-") return read_stdin(error);
  if (!a.text.empty()) return join(a.text, " ");
  if (is_terminal(0)) {
    error = "give the error message: dlready explain 'MESSAGE', --from FILE, or pipe it (python train.py 2>&1 | dlready "
            "explain)";
    return std::nullopt;
  }
  return read_stdin(error);
}

// The site-packages folders whose torch a traceback's paths name (".../site-packages/torch/...",
// "...\\Lib\\site-packages\\torch\\..."), in the order they appear.
std::vector<std::string> traceback_site_packages(std::string_view text) {
  std::vector<std::string> out;
  for (const char* marker : {"site-packages", "dist-packages"}) {
    LinearFinder finder(marker);
    for (size_t at = finder.find(text, 0); at != std::string_view::npos; at = finder.find(text, at + 1)) {
      size_t end = at + std::string_view(marker).size();
      if (text.substr(end + 1, 5) != "torch" || (text[end] != '/' && text[end] != '\\')) continue;
      size_t start = text.find_last_of(" \t\n\"'(`", at);
      start = start == std::string_view::npos ? 0 : start + 1;
      std::string folder = printable(std::string(text.substr(start, end - start)), 400);
      if (std::find(out.begin(), out.end(), folder) == out.end()) out.push_back(folder);
    }
  }
  return out;
}

// A line for each torch the message shows that the examination did not read: the cause may be
// in that environment, not in the ones examined.
std::string other_environments(std::string_view text, const Examination& e) {
  std::string out;
  for (const auto& shown : traceback_site_packages(text)) {
    bool examined = false;
    for (const auto& env : e.facts.python.envs)
      for (const auto& sp : env.site_packages) examined |= sp == shown;
    if (examined) continue;
    size_t lib = shown.rfind("/lib/python");
    size_t win = shown.rfind("\\Lib\\site-packages");
    std::string prefix = lib != std::string::npos ? shown.substr(0, lib) : win != std::string::npos ? shown.substr(0, win) : shown;
    // In the examined machine's shell: export on Linux and macOS, PowerShell's $env: on Windows.
    const PlatformRecord& shell = platform_of(e.facts);
    bool posix = shell.platform != Platform::windows;
    out += "The message's torch is in " + shown + ", which this examination did not read: examine that environment with " +
           set_variable(shell, "VIRTUAL_ENV", posix ? shell_quote(prefix) : prefix) + "; dlready doctor (CONDA_PREFIX " +
           "for a conda environment).\n";
  }
  return out;
}

struct Cause {
  std::string id;
  bool confirmed = false;
  bool by_message = false;  // the message's own words prove it (nothing examined says otherwise)
  Finding finding;  // the doctor's or the message's (confirmed), else the catalogue's
};

// What confirms a cause: the doctor's examination of this machine, the facts of a pasted report,
// or nothing (the message alone).
struct Judge {
  const Report* report = nullptr;
  std::string confirmed = "likely", unseen = "likely";  // the words for a cause it shows, and one it does not
  bool adds_its_own = false;  // a report's own findings are causes even when no message points to them
  std::vector<std::string> read, missing;  // a report's: what it gave, what it lacks
  // No machine was examined (a report, or the message alone): a message that proves a finding by
  // its words confirms it, with the report's facts beside it.
  bool messages_decide = true;
  const PastedReport* pasted = nullptr;
  std::string text;  // the message and the reports, as given
};

// A report whose facts say otherwise than the message: "Torch not compiled with CUDA enabled"
// beside a report whose torch is a CUDA build came from another torch (a second install, another
// environment), so the message does not confirm it.
bool refuted_by_report(const std::string& id, const PastedReport& pasted) {
  if (id != "torch-cpu-only" || pasted.facts.python.envs.empty() || pasted.facts.python.envs.front().torch.empty())
    return false;
  const auto& cuda = pasted.facts.python.envs.front().torch.front().cuda;
  return cuda && *cuda != "unknown";
}

// The causes the messages prove by their own words (a signature's `decides`).
void decided_by_messages(const std::vector<SignatureMatch>& matches, const Judge& judge, std::vector<Cause>& causes) {
  // Without a report, the message's own text holds the clues (a traceback's paths, a docker run).
  PastedReport from_text;
  if (!judge.pasted) from_text.clues = read_pasted_clues(judge.text);
  const PastedReport& pasted = judge.pasted ? *judge.pasted : from_text;
  for (const auto& m : matches)
    for (auto& c : causes) {
      if (c.id != decided_finding(m, pasted.clues) || refuted_by_report(c.id, pasted)) continue;
      if (c.confirmed) {
        if (!c.by_message) c.finding.evidence.push_back("the message (line " + std::to_string(m.line_number) + "): " + m.line);
        continue;
      }
      c.confirmed = c.by_message = true;
      c.finding = message_finding(m, pasted.facts, pasted.clues);
    }
}

// The findings the messages point to, each confirmed by the judge or not; a report's own findings too.
std::vector<Cause> causes_of(const std::vector<SignatureMatch>& matches, const Judge& judge) {
  std::vector<Cause> out;
  std::set<std::string> seen;
  auto add = [&](const std::string& id) {
    if (!seen.insert(id).second) return;
    Cause c{id, false, false, make_finding(id)};
    if (judge.report)
      for (const auto& f : judge.report->findings)
        if (f.id == id) c.confirmed = true, c.finding = f;
    out.push_back(c);
  };
  for (const auto& m : matches)
    for (const auto& id : m.signature->findings) add(id);
  if (judge.adds_its_own)
    for (const auto& f : judge.report->findings) add(f.id);
  if (judge.messages_decide) decided_by_messages(matches, judge, out);
  // Confirmed causes first; among the rest, the table's order (most likely first).
  std::stable_partition(out.begin(), out.end(), [](const Cause& c) { return c.confirmed; });
  return out;
}

std::string confidence_words(const Cause& c, const Judge& judge) {
  if (c.by_message && c.finding.evidence.size() > 1)
    return judge.pasted ? "shown by the message and the report" : "shown by the message and the text around it";
  if (c.by_message) return "shown by the message itself";
  return c.confirmed ? judge.confirmed : judge.unseen;
}

// What confirmed a cause, for --json: the message's words, the report's facts, or this machine.
const char* confirmed_by(const Cause& c, const Judge& judge) {
  return c.by_message ? "message" : judge.adds_its_own ? "report" : "machine";
}

std::string report_lines(const Judge& judge) {
  std::string out;
  if (!judge.read.empty()) out += "From the report: " + join(judge.read, "; ") + "\n";
  if (!judge.missing.empty()) out += "The report lacks " + join(judge.missing, "; ") + "\n";
  return out;
}

std::string text_report(const std::vector<SignatureMatch>& matches, const std::vector<Cause>& causes, const Judge& judge,
                        const std::string& elsewhere) {
  std::string out = "dlready explain — " + std::to_string(matches.size()) + " known message" +
                    (matches.size() == 1 ? "" : "s") + "\n";
  for (const auto& m : matches) {
    out += "\n  line " + std::to_string(m.line_number) + ": " + m.line + "\n";
    out += "    printed by " + m.signature->printed_by + "\n";
    out += "    → " + signature_advice(m) + "\n";
  }
  bool any_confirmed = false;
  out += "\nCauses\n";
  for (const auto& c : causes) {
    any_confirmed |= c.confirmed;
    out += std::string(mark(c.finding.severity)) + " " + c.finding.title + "  [" + c.id + "] — " +
           confidence_words(c, judge) + "\n";
    if (c.confirmed) {
      for (const auto& ev : c.finding.evidence) out += "    · " + ev + "\n";
      for (const auto& fx : c.finding.fix) out += "    → " + fx + "\n";
    } else {
      out += "    " + std::string(catalogue_entry(c.id).meaning) + "\n";
    }
  }
  if (causes.empty()) out += "none that the report shows\n";
  std::string about_report = report_lines(judge);
  if (!about_report.empty()) out += "\n" + about_report;
  if (!elsewhere.empty()) out += "\n" + elsewhere;
  if (judge.report && !judge.adds_its_own && !any_confirmed && elsewhere.empty())
    out += "\nThis machine shows none of these causes: the message may come from another machine or environment; "
           "run dlready doctor there (with VIRTUAL_ENV or CONDA_PREFIX of the environment that failed).\n";
  if (!judge.report)
    out += "\nFrom the message alone (no machine examined): dlready doctor on the machine that printed it gives that "
           "machine's own evidence and decides the rest.\n";
  return out;
}

// The same as Markdown, to post as the answer to an issue.
std::string markdown_report(const std::vector<SignatureMatch>& matches, const std::vector<Cause>& causes, const Judge& judge,
                            const std::string& elsewhere) {
  std::string out = "### dlready explain\n\n**The messages**\n\n";
  for (const auto& m : matches)
    out += "- line " + std::to_string(m.line_number) + ": " + md_code_span(m.line) + " — printed by " +
           md_prose(m.signature->printed_by) + "\n  - " + md_prose(signature_advice(m)) + "\n";
  out += "\n**The causes**\n\n";
  for (const auto& c : causes) {
    out += "- " + std::string(mark(c.finding.severity)) + " **" + md_prose(c.finding.title) + "** (" + md_code_span(c.id) +
           ") — " + md_prose(confidence_words(c, judge)) + "\n";
    for (const auto& ev : c.finding.evidence) out += "  - " + md_prose(ev) + "\n";
    for (const auto& fx : c.finding.fix) out += "  - fix: " + md_fix(fx) + "\n";
    if (!c.confirmed) out += "  - " + md_prose(catalogue_entry(c.id).meaning) + "\n";
  }
  for (const auto& line : lines(report_lines(judge) + elsewhere))
    if (!line.empty()) out += "\n" + md_prose(line) + "\n";
  if (!judge.report)
    out += "\n`dlready doctor` on the machine that printed the message gives that machine's own evidence and decides the rest.\n";
  return out;
}

nlohmann::json json_report(const std::vector<SignatureMatch>& matches, const std::vector<Cause>& causes, const Judge& judge) {
  nlohmann::json messages = nlohmann::json::array(), findings = nlohmann::json::array();
  for (const auto& m : matches)
    messages.push_back({{"signature", m.signature->id}, {"line", m.line_number}, {"text", m.line},
                        {"printed_by", m.signature->printed_by}, {"values", m.values}, {"advice", signature_advice(m)},
                        {"findings", m.signature->findings}, {"seen_in", m.signature->seen_in}});
  for (const auto& c : causes) {
    findings.push_back({{"id", c.id}, {"severity", to_string(c.finding.severity)}, {"title", c.finding.title},
                        {"confidence", c.confirmed ? "confirmed" : "likely"}, {"evidence", c.finding.evidence},
                        {"fix", c.finding.fix}});
    if (c.confirmed) findings.back()["confirmed_by"] = confirmed_by(c, judge);
  }
  nlohmann::json j = {{"schema", "dlready.explain/1"}, {"examined", judge.report && !judge.adds_its_own},
                      {"messages", messages}, {"findings", findings}};
  if (judge.adds_its_own) j["report"] = {{"read", judge.read}, {"missing", judge.missing}};
  return j;
}

// `dlready explain ID`: the finding's entry and the messages that point to it.
std::string finding_entry(const CatalogueEntry& e) {
  std::string out = std::string(mark(e.severity)) + " " + e.id + " (" + to_string(e.severity) + "): " + e.title + "\n\n" +
                    e.meaning + "\n";
  auto signatures = signatures_for_finding(e.id);
  if (!signatures.empty()) out += "\nMessages that point to it:\n";
  for (const auto* s : signatures) out += "  \"" + readable_pattern(*s) + "\" (" + s->printed_by + ")\n";
  out += "\nOn this machine: dlready doctor (it says whether " + std::string(e.id) + " applies, with the evidence and the fix)\n";
  return out;
}

const CatalogueEntry* entry_named(const std::vector<std::string>& text) {
  if (text.size() != 1) return nullptr;
  for (const auto& e : catalogue())
    if (text[0] == e.id) return &e;
  return nullptr;
}

// The findings a pasted report can decide: those whose facts collect_env gives (the torch and its
// CUDA, the driver, the GPUs, the packages). The doctor's other rules read files a paste does not
// hold (device nodes, libraries, the loader's cache) and would speak of their absence.
Report paste_decidable(Report r) {
  static const std::set<std::string> kDecidable = {
      "torch-cpu-only", "driver-too-old", "arch-not-supported", "ptx-jit-only",
      "torch-needs-numpy1", "jetson-torch-needs-numpy1", "mac-intel-no-new-torch", "wsl1-no-gpu",
      // nvidia-smi's memory and compute mode, the variables pasted
      "gpu-memory-busy", "compute-mode-exclusive", "compute-mode-prohibited", "nccl-variables-set",
      "alloc-conf-invalid", "alloc-conf-conflict",
      // CUDA_VISIBLE_DEVICES against the GPUs nvidia-smi lists; a Mac's version, processor and Python
      "cuda-visible-devices-hides-all", "cuda-visible-devices-invalid", "macos-too-old-for-mps",
      "mac-python-under-rosetta",
      // pip's torch beside conda's pytorch of another release
      "torch-duplicate-installs"};
  std::vector<Finding> kept;
  for (auto& f : r.findings)
    if (kDecidable.count(f.id)) kept.push_back(std::move(f));
  r.findings = std::move(kept);
  return r;
}

std::string nothing_known(const std::string& text, const Judge& judge) {
  size_t n = lines(text).size();
  std::string out = "dlready explain: no message dlready knows in the text (" + std::to_string(n) +
                    (n == 1 ? " line" : " lines") + ")";
  if (judge.adds_its_own) return out + ", and no cause in the report\n" + report_lines(judge);
  return out + ": run dlready doctor on the machine that printed it\n";
}

}  // namespace

CommandGroup explain_command_group() { return single_command<ExplainArgs>("explain", add_explain_command, run_explain); }

ExitCode run_explain(const ExplainArgs& a) {
  if (const CatalogueEntry* e = entry_named(a.text)) {
    std::fputs(finding_entry(*e).c_str(), stdout);
    return ExitCode::ok;
  }
  std::string error;
  auto message = text_of(a, error);
  auto pasted_text = message ? reports_of(a, error) : std::nullopt;
  if (!message || !pasted_text) {
    say_error(error);
    return ExitCode::usage;
  }
  // The message and the reports it came with: one text, each line read once.
  const std::string text = message->empty()       ? *pasted_text
                           : pasted_text->empty() ? *message
                                                  : *message + "\n" + *pasted_text;
  auto matches = match_error_signatures(text);
  Judge judge;
  std::optional<Examination> e;
  PastedReport pasted;
  Report from_report;
  if (!a.reports.empty()) {
    pasted = read_pasted_report(*pasted_text);
    from_report = paste_decidable(diagnose(pasted.facts));
    judge = {&from_report, "confirmed by the report", "possible (the report does not show it)", true, pasted.read,
             pasted.missing, true, &pasted};
    if (!pasted.recognised) judge.missing = {"python -m torch.utils.collect_env's output (none in the report)"};
  } else if (!matches.empty() && !a.no_examine) {
    GatherOptions opt;
    opt.root = a.root;
    opt.env = process_environment();
    opt.load_root_drivers = a.load_root_drivers;
    complete_live_options(opt, a.root == "/");  // a root's scans are not cached
    e = examine(opt);
    if (!e->error.empty()) {
      say_error(e->error);
      return ExitCode::usage;
    }
    judge = {&e->report, "confirmed on this machine", "possible (this machine does not show it)", false, {}, {}, false, nullptr};
  }
  judge.text = text;
  auto causes = causes_of(matches, judge);
  bool named = !causes.empty();
  std::string elsewhere = e ? other_environments(text, *e) : "";
  std::string out = a.json       ? json_text(json_report(matches, causes, judge), 2) + "\n"
                    : !named     ? nothing_known(text, judge)
                    : a.markdown ? markdown_report(matches, causes, judge, elsewhere)
                                 : text_report(matches, causes, judge, elsewhere);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return named ? ExitCode::ok : ExitCode::failed;
}

}  // namespace dlready
