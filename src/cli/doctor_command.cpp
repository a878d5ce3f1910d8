#include "cli/doctor_command.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>

#include "cli/torch_module.hpp"
#include "cli/usage_hints.hpp"
#include "core/json_text.hpp"
#include "core/redact.hpp"
#include "doctor/examine.hpp"
#include "probe/probes.hpp"
#include "probe/scan_cache.hpp"
#include "report/render.hpp"

namespace dlready {

void add_doctor_command(CLI::App& app, DoctorArgs& a) {
  auto* cmd = app.add_subcommand("doctor", "Probe the GPU deep-learning stack, diagnose it, recommend fixes");
  cmd->add_option("--root", a.root, "Read every file under DIR instead of / (test seam, offline analysis)")
      ->check(CLI::ExistingDirectory);
  auto* j = cmd->add_flag("--json", a.json, "Machine-readable report (schema in docs/json-schema.md)");
  cmd->add_flag("--markdown", a.markdown, "Markdown report, ready to paste into a bug report")->excludes(j);
  cmd->add_option("--fail-on", a.fail_on, "Exit 1 on findings of this severity or worse")
      ->check(CLI::IsMember({"error", "warning"}));
  cmd->add_flag("--no-color", a.no_color, "No ANSI colours (NO_COLOR is honoured too)");
  cmd->add_option("--user", a.user, "Check device-node access for this user (from <root>/etc/passwd)");
  cmd->add_option("--probe-timeout-ms", a.timeout_ms, "Kill a driver probe that takes longer (ms)")
      ->check(CLI::Range(50, 600000));
  cmd->add_flag("--no-driver-probe", a.no_driver_probe, "Do not load libcuda/libnvidia-ml (files only)");
  cmd->add_flag("--load-root-drivers", a.load_root_drivers, kLoadRootDriversHelp);
  cmd->add_option("--binary", a.binaries, "Also resolve this program's shared libraries like ld.so (repeatable)");
  cmd->add_flag("--no-cache", a.no_cache,
                "Neither read nor write the cache of library scans ($XDG_CACHE_HOME/dlready, else ~/.cache/dlready)");
  cmd->add_flag("--redact", a.redact,
                "Replace user names, home directories, host names, addresses and secret-looking values with "
                "placeholders (for a public issue)");
  cmd->add_flag("--list-findings", a.list_findings, "Print the catalogue of finding ids (Markdown) and exit");
}

ExitCode run_doctor(const DoctorArgs& a) {
  if (a.list_findings) {
    std::fputs(render_findings_catalogue_markdown().c_str(), stdout);
    return ExitCode::ok;
  }
  GatherOptions opt;
  opt.root = a.root;
  opt.env = process_environment();
  if (!a.user.empty()) opt.user = a.user;
  opt.probe_timeout_ms = a.timeout_ms;
  opt.driver_probe = !a.no_driver_probe;
  opt.load_root_drivers = a.load_root_drivers;
  opt.binaries = a.binaries;
  // A relative --binary is relative to where the user is (on this machine; under --root, to the root).
  char cwd[4096];
  for (auto& b : opt.binaries)
    if (!b.empty() && b[0] != '/') b = (opt.root == "/" && ::getcwd(cwd, sizeof cwd) ? std::string(cwd) : "") + "/" + b;
  if (!a.no_cache) opt.cache_file = default_scan_cache_file(opt.env);
  if (opt.root == "/") describe_own_module(opt);  // what `dlready train` would load
  opt.redaction_inputs = a.redact;
  auto e = examine(opt);
  if (!e.error.empty()) {
    std::fprintf(stderr, "dlready doctor: %s\n", e.error.c_str());
    return ExitCode::usage;
  }
  for (const auto& b : e.facts.binaries) {
    if (b.error.empty() || !b.requested) continue;  // a damaged library found in an environment is a finding
    std::fprintf(stderr, "dlready doctor: --binary %s\n", b.error.c_str());
    return ExitCode::usage;
  }
  const Report& r = e.report;
  std::optional<Redactor> redactor;
  if (e.redaction) redactor.emplace(*e.redaction);
  std::string out;
  if (a.json)
    out = redactor ? json_text(redactor->apply(report_json(e.facts, r)), 2) + "\n" : render_json(e.facts, r);
  else if (a.markdown)
    out = render_markdown(e.facts, r, redactor ? redactor->summary() : "");
  else
    out = render_text(e.facts, r, {::isatty(1) && !std::getenv("NO_COLOR") && !a.no_color});
  if (redactor && !a.json) out = redactor->apply(out);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  Severity threshold = a.fail_on == "warning" ? Severity::warning : Severity::error;
  for (const auto& x : r.findings)
    if (x.severity >= threshold) return ExitCode::failed;
  return ExitCode::ok;
}

}  // namespace dlready
