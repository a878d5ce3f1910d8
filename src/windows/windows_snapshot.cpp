// snapshot, diff and export on Windows: the same documents as on Linux (a Windows snapshot diffs
// against a Linux one, and its lock rebuilds the environment there), written atomically.
#include <cstdio>

#include "core/json_text.hpp"
#include "core/redact.hpp"
#include "core/text.hpp"
#include "diagnose/rules.hpp"
#include "report/render.hpp"
#include "snapshot/diff_report.hpp"
#include "snapshot/export.hpp"
#include "windows/windows_commands.hpp"
#include "windows/windows_probes.hpp"

namespace dlready {

void add_windows_snapshot_commands(CLI::App& app, WindowsSnapshotArgs& a) {
  auto* snap = app.add_subcommand("snapshot", "Lock this machine's stack (driver, GPUs, CUDA, PyTorch, environment) into JSON");
  snap->add_option("--out", a.out, "Write the snapshot to FILE (atomically) instead of standard output");
  snap->add_flag("--no-driver-probe", a.no_driver_probe, "Do not load nvcuda.dll/nvml.dll (files only)");
  snap->add_option("--probe-timeout-ms", a.timeout_ms, "Kill a driver probe that takes longer (ms)")
      ->check(CLI::Range(50, 600000));
  snap->add_flag("--redact", a.redact,
                 "Replace the user name, profile folder, computer name and secret-looking values with placeholders");
  auto* diff = app.add_subcommand("diff", "What differs between two snapshots (or doctor --json reports), and why it matters");
  diff->add_option("before", a.before, "Snapshot of the machine where it works")->required();
  diff->add_option("after", a.after, "Snapshot of the machine to compare")->required();
  diff->add_flag("--json", a.diff_json, "Print the differences as JSON (schema dlready.diff/1)");
  auto* exp = app.add_subcommand("export", "Write a snapshot's PyTorch stack as requirements.txt, environment.yml or a Dockerfile");
  exp->add_option("snapshot", a.snapshot, "Snapshot (or doctor --json report) to export")->required();
  exp->add_option("--format", a.format, "requirements (default), conda or dockerfile")
      ->check(CLI::IsMember({"requirements", "conda", "dockerfile"}));
  exp->add_option("--out", a.export_out, "Write to FILE (atomically) instead of standard output");
}

ExitCode run_windows_snapshot(const WindowsSnapshotArgs& a) {
  WindowsGatherOptions options;
  options.env = windows_environment();
  options.driver_probe = !a.no_driver_probe;
  options.probe_timeout_ms = a.timeout_ms;
  Facts facts = gather_windows_facts(options);
  std::string host = options.env.count("COMPUTERNAME") ? options.env.at("COMPUTERNAME") : "";
  nlohmann::json snapshot = make_snapshot(report_json(facts, diagnose(facts)), host, utc_now());
  if (a.redact) snapshot = Redactor(windows_redaction_inputs(options.env)).apply(snapshot);
  return write_snapshot(snapshot, a.out);
}

ExitCode run_windows_snapshot_command(CLI::App& app, const WindowsSnapshotArgs& a) {
  if (app.got_subcommand("snapshot")) return run_windows_snapshot(a);
  if (app.got_subcommand("diff")) return run_diff_command(a.before, a.after, a.diff_json);
  return run_export_command(a.snapshot, a.format, a.export_out);
}

}  // namespace dlready
