#include "cli/doctor_command.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "cli/front_end.hpp"
#include "cli/usage_hints.hpp"
#include "core/json_text.hpp"
#include "core/redact.hpp"
#include "os/terminal.hpp"
#include "doctor/examine.hpp"
#include "report/render.hpp"

namespace dlready {

void add_doctor_command(CLI::App& app, DoctorArgs& a) {
  const auto& here = this_platform();
  auto* cmd = app.get_subcommand("doctor");
  if (here.reads_roots)
    cmd->add_option("--root", a.root, "Read every file under DIR instead of / (a capture, a mounted system, offline analysis)")
        ->check(CLI::ExistingDirectory);
  auto* j = cmd->add_flag("--json", a.json, "Machine-readable report (schema in docs/json-schema.md)");
  cmd->add_flag("--markdown", a.markdown, "Markdown report, ready to paste into a bug report")->excludes(j);
  cmd->add_option("--fail-on", a.fail_on, "Exit 1 on findings of this severity or worse")
      ->check(CLI::IsMember({"error", "warning"}));
  cmd->add_option("--need", a.need,
                  "Exit 0 when this machine can train on it (cpu: a CI box without a GPU passes; gpu: CUDA, or a "
                  "Mac's MPS, must be usable), 1 when not, whatever else is found")
      ->check(CLI::IsMember({"cpu", "gpu"}))
      ->excludes("--fail-on");
  cmd->add_flag("--no-color", a.no_color, "No ANSI colours (NO_COLOR is honoured too)");
  if (here.reads_roots)
    cmd->add_option("--user", a.user, "Check device-node access for this user (from <root>/etc/passwd)");
  cmd->add_option("--probe-timeout-ms", a.timeout_ms, "Kill a driver probe that takes longer (ms)")
      ->check(CLI::Range(50, 600000));
  cmd->add_flag("--no-driver-probe", a.no_driver_probe,
                "Do not load " + std::string(here.driver_libraries) + " (files only)");
  if (here.reads_roots) {
    cmd->add_flag("--load-root-drivers", a.load_root_drivers, kLoadRootDriversHelp);
    cmd->add_option("--binary", a.binaries, "Also resolve this program's shared libraries like ld.so (repeatable)");
    cmd->add_flag("--no-cache", a.no_cache,
                  "Neither read nor write the cache of library scans ($XDG_CACHE_HOME/dlready, else ~/.cache/dlready)");
  }
  cmd->add_flag("--redact", a.redact, std::string(here.redact_help) + " (for a public issue)");
  cmd->add_flag("--list-findings", a.list_findings, "Print the catalogue of finding ids (Markdown) and exit");
}

namespace {

GatherOptions gather_options(const DoctorArgs& a) {
  GatherOptions opt;
  opt.root = a.root;
  opt.env = process_environment();
  if (!a.user.empty()) opt.user = a.user;
  opt.probe_timeout_ms = a.timeout_ms;
  opt.driver_probe = !a.no_driver_probe;
  opt.load_root_drivers = a.load_root_drivers;
  opt.binaries = a.binaries;
  // A relative --binary is relative to where the user is (on this machine; under --root, to the root).
  std::error_code ec;
  std::string cwd = opt.root == "/" ? std::filesystem::current_path(ec).string() : "";
  for (auto& b : opt.binaries)
    if (!b.empty() && b[0] != '/') b = cwd + "/" + b;
  complete_live_options(opt, !a.no_cache);
  opt.redaction_inputs = a.redact;
  return opt;
}

// The report in the format asked for, redacted with the examined machine's own names when asked.
std::string rendered_report(const DoctorArgs& a, const Examination& e) {
  std::optional<Redactor> redactor;
  if (e.redaction) redactor.emplace(*e.redaction);
  std::string out;
  if (a.json)
    out = redactor ? json_text(redactor->apply(report_json(e.facts, e.report)), 2) + "\n" : render_json(e.facts, e.report);
  else if (a.markdown)
    out = render_markdown(e.facts, e.report, redactor ? redactor->summary() : "");
  else
    out = render_text(e.facts, e.report, {is_terminal(1) && !std::getenv("NO_COLOR") && !a.no_color});
  if (redactor && !a.json) out = redactor->apply(out);
  if (redactor && a.markdown) out = md_escape_placeholders(out);
  return out;
}

// --need: the CPU trains wherever the verdict says so; the GPU is CUDA that is usable, or on a Mac
// a torch whose MPS is.
bool needed_device_works(const std::string& need, const Verdict& v) {
  if (need == "cpu") return v.cpu_training_ok;
  bool mps = false;
  for (const auto& t : v.torch) mps = mps || t.mps_available == true;
  return v.cuda_usable == true || mps;
}

}  // namespace

CommandGroup doctor_command_group() { return single_command<DoctorArgs>("doctor", add_doctor_command, run_doctor); }

ExitCode run_doctor(const DoctorArgs& a) {
  if (a.list_findings) {
    std::fputs(render_findings_catalogue_markdown().c_str(), stdout);
    return ExitCode::ok;
  }
  auto e = examine(gather_options(a));
  if (!e.error.empty()) {
    std::fprintf(stderr, "dlready doctor: %s\n", e.error.c_str());
    return ExitCode::usage;
  }
  for (const auto& b : e.facts.binaries) {
    if (b.error.empty() || !b.requested) continue;  // a damaged library found in an environment is a finding
    std::fprintf(stderr, "dlready doctor: --binary %s\n", b.error.c_str());
    return ExitCode::usage;
  }
  std::string out = rendered_report(a, e);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  if (!a.need.empty()) return needed_device_works(a.need, e.report.verdict) ? ExitCode::ok : ExitCode::failed;
  Severity threshold = a.fail_on == "warning" ? Severity::warning : Severity::error;
  for (const auto& x : e.report.findings)
    if (x.severity >= threshold) return ExitCode::failed;
  return ExitCode::ok;
}

}  // namespace dlready
