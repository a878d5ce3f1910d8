#include "cli/snapshot_command.hpp"

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <memory>

#include "cli/front_end.hpp"
#include "cli/usage_hints.hpp"
#include "os/host_name.hpp"
#include "core/json_text.hpp"
#include "core/redact.hpp"
#include "core/text.hpp"
#include "doctor/examine.hpp"
#include "report/render.hpp"
#include "snapshot/diff_report.hpp"
#include "snapshot/export.hpp"

namespace dlready {

void add_snapshot_commands(CLI::App& app, SnapshotArgs& s, DiffArgs& d, ExportArgs& e) {
  auto* snap = app.get_subcommand("snapshot");
  snap->add_option("--out", s.out, "Write the snapshot to FILE (atomically) instead of standard output");
  const auto& here = this_platform();
  if (here.reads_roots)
    snap->add_option("--root", s.root, "Read every file under DIR instead of / (a capture, a mounted system, offline analysis)")
        ->check(CLI::ExistingDirectory);
  snap->add_flag("--no-driver-probe", s.no_driver_probe,
                 "Do not load " + std::string(here.driver_libraries) + " (files only)");
  if (here.reads_roots) snap->add_flag("--load-root-drivers", s.load_root_drivers, kLoadRootDriversHelp);
  snap->add_option("--probe-timeout-ms", s.timeout_ms, "Kill a driver probe that takes longer (ms)")
      ->check(CLI::Range(50, 600000));
  snap->add_flag("--redact", s.redact,
                 std::string(here.redact_help) + " (dlready diff still compares two redacted snapshots)");
  auto* diff = app.get_subcommand("diff");
  diff->add_option("before", d.before, "Snapshot of the machine where it works")->required();
  diff->add_option("after", d.after, "Snapshot of the machine to compare")->required();
  diff->add_flag("--json", d.json, "Print the differences as JSON (schema dlready.diff/1)");
  auto* exp = app.get_subcommand("export");
  exp->add_option("snapshot", e.snapshot, "Snapshot (or doctor --json report) to export")->required();
  exp->add_option("--format", e.format, "requirements (default), conda or dockerfile")
      ->check(CLI::IsMember({"requirements", "conda", "dockerfile"}));
  exp->add_option("--out", e.out, "Write to FILE (atomically) instead of standard output");
}

ExitCode run_export(const ExportArgs& a) { return run_export_command(a.snapshot, a.format, a.out); }

namespace {

GatherOptions gather_options(const SnapshotArgs& a) {
  GatherOptions opt;
  opt.root = a.root;
  opt.env = process_environment();
  opt.driver_probe = !a.no_driver_probe;
  opt.probe_timeout_ms = a.timeout_ms;
  opt.load_root_drivers = a.load_root_drivers;
  complete_live_options(opt, true);  // the doctor's library-scan cache, what `dlready train` would load
  opt.redaction_inputs = a.redact;
  return opt;
}

}  // namespace

Status take_snapshot(const SnapshotArgs& a, nlohmann::json& out) {
  auto e = examine(gather_options(a));
  if (!e.error.empty()) return Status::failure(e.error);
  const std::optional<std::string> host = host_name();
  out = make_snapshot(report_json(e.facts, e.report), host.value_or(""), utc_now());
  if (e.redaction) {
    // The examined machine's names (a capture's recorded environment under its root), and the host the
    // snapshot names as where it was taken.
    auto hide = *e.redaction;
    if (host) hide.hosts.push_back(*host);
    out = Redactor(hide).apply(out);
  }
  return {};
}

std::optional<int> cuda_device_count(const SnapshotArgs& a) {
  if (a.no_driver_probe) return std::nullopt;
  auto e = examine(gather_options(a));
  if (!e.error.empty()) return std::nullopt;
  const auto& d = e.facts.driver;
  // No driver library (none found, or it does not load): CUDA can use no GPU.
  if (d.status == ProbeStatus::load_failed || (d.status == ProbeStatus::not_run && !e.facts.libcuda.path)) return 0;
  if (d.status != ProbeStatus::ok || !d.init_result) return std::nullopt;
  if (*d.init_result != 0) return 0;  // cuInit failed (CUDA_ERROR_NO_DEVICE, ...): the doctor says why
  return d.device_count;
}

ExitCode run_snapshot(const SnapshotArgs& a) {
  nlohmann::json snapshot;
  if (auto st = take_snapshot(a, snapshot); !st) {
    std::fprintf(stderr, "dlready snapshot: %s\n", st.error().c_str());
    return ExitCode::usage;
  }
  return write_snapshot(snapshot, a.out);
}

ExitCode run_diff(const DiffArgs& a) { return run_diff_command(a.before, a.after, a.json); }

namespace {

void add_hash_options(CLI::App& app, ExportArgs& e) {
  auto* exp = app.get_subcommand("export");
  exp->add_flag("--hashes", e.hashes,
                "Each pin with the sha256 of its files on the index, for pip install --require-hashes -r FILE "
                "(reads the indexes; requirements only)");
  exp->add_option("--index-url", e.index_url,
                  "With --hashes: the PyPI index (or a mirror) to read (default: PIP_INDEX_URL, UV_INDEX_URL, else "
                  "https://pypi.org/simple/)");
  exp->add_option("--torch-index", e.torch_index,
                  "With --hashes: a mirror of https://download.pytorch.org/whl/ for the +cuXYZ pins (default "
                  "DLREADY_TORCH_INDEX)");
}

ExitCode run_hashed_export(const ExportArgs& a, IndexHashReader read_hashes) {
  return run_export_command(a.snapshot, a.format, a.out, [&](const std::vector<LockPin>& pins) {
    return read_hashes(pins, a.index_url, a.torch_index);
  });
}

}  // namespace

CommandGroup snapshot_command_group(IndexHashReader read_hashes) {
  struct Args {
    SnapshotArgs snapshot;
    DiffArgs diff;
    ExportArgs exp;
  };
  auto a = std::make_shared<Args>();
  return {[a, read_hashes](CLI::App& app) {
            add_snapshot_commands(app, a->snapshot, a->diff, a->exp);
            if (read_hashes) add_hash_options(app, a->exp);
          },
          [a, read_hashes](const CLI::App& app) -> std::optional<int> {
            if (app.got_subcommand("snapshot")) return to_int(run_snapshot(a->snapshot));
            if (app.got_subcommand("diff")) return to_int(run_diff(a->diff));
            if (app.got_subcommand("export"))
              return to_int(a->exp.hashes && read_hashes ? run_hashed_export(a->exp, read_hashes) : run_export(a->exp));
            return std::nullopt;
          },
          {"snapshot", "diff", "export"}};
}

}  // namespace dlready
