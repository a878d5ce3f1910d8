#include "cli/snapshot_command.hpp"

#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <map>

#include "core/atomic_file.hpp"
#include "core/json_text.hpp"
#include "core/redact.hpp"
#include "cli/torch_module.hpp"
#include "core/text.hpp"
#include "doctor/examine.hpp"
#include "probe/probes.hpp"
#include "probe/scan_cache.hpp"
#include "report/render.hpp"
#include "snapshot/diff.hpp"
#include "snapshot/export.hpp"

namespace dlready {

void add_snapshot_commands(CLI::App& app, SnapshotArgs& s, DiffArgs& d, ExportArgs& e) {
  auto* snap = app.add_subcommand("snapshot", "Lock this machine's stack (driver, GPUs, CUDA, PyTorch, environment) into JSON");
  snap->add_option("--out", s.out, "Write the snapshot to FILE (atomically) instead of standard output");
  snap->add_option("--root", s.root, "Read every file under DIR instead of / (test seam, offline analysis)")
      ->check(CLI::ExistingDirectory);
  snap->add_flag("--no-driver-probe", s.no_driver_probe, "Do not load libcuda/libnvidia-ml (files only)");
  snap->add_flag("--redact", s.redact,
                 "Replace user names, home directories, host names, addresses and secret-looking values with "
                 "placeholders (dlready diff still compares two redacted snapshots)");
  auto* diff = app.add_subcommand("diff", "What differs between two snapshots (or doctor --json reports), and why it matters");
  diff->add_option("before", d.before, "Snapshot of the machine where it works")->required();
  diff->add_option("after", d.after, "Snapshot of the machine to compare")->required();
  diff->add_flag("--json", d.json, "Print the differences as JSON (schema dlready.diff/1)");
  auto* exp = app.add_subcommand("export", "Write a snapshot's PyTorch stack as requirements.txt, environment.yml or a Dockerfile");
  exp->add_option("snapshot", e.snapshot, "Snapshot (or doctor --json report) to export")->required();
  exp->add_option("--format", e.format, "requirements (default), conda or dockerfile")
      ->check(CLI::IsMember({"requirements", "conda", "dockerfile"}));
  exp->add_option("--out", e.out, "Write to FILE (atomically) instead of standard output");
}

ExitCode run_export(const ExportArgs& a) {
  auto file = load_snapshot_file(a.snapshot);
  if (!file.error.empty()) {
    std::fprintf(stderr, "dlready export: %s\n", file.error.c_str());
    return ExitCode::usage;
  }
  auto e = export_stack(file.doc, a.format);
  if (!e.error.empty()) {
    std::fprintf(stderr, "dlready export: %s: %s\n", a.snapshot.c_str(), e.error.c_str());
    return e.not_a_snapshot ? ExitCode::usage : ExitCode::failed;
  }
  for (const auto& w : e.warnings) std::fprintf(stderr, "dlready export: warning: %s\n", w.c_str());
  if (a.out.empty()) {
    std::fwrite(e.text.data(), 1, e.text.size(), stdout);
    return ExitCode::ok;
  }
  if (auto st = write_file_atomically(a.out, e.text); !st) {
    std::fprintf(stderr, "dlready export: %s\n", st.error().c_str());
    return ExitCode::failed;
  }
  return ExitCode::ok;
}

namespace {

std::string host_name() {
  char host[256] = "";
  ::gethostname(host, sizeof host - 1);
  return host;
}

GatherOptions gather_options(const SnapshotArgs& a) {
  GatherOptions opt;
  opt.root = a.root;
  opt.env = process_environment();
  opt.driver_probe = !a.no_driver_probe;
  opt.cache_file = default_scan_cache_file(opt.env);  // as the doctor's (probe/scan_cache.hpp)
  if (opt.root == "/") opt.own_module = train_module_path();  // what `dlready train` would load
  return opt;
}

}  // namespace

Status take_snapshot(const SnapshotArgs& a, nlohmann::json& out) {
  auto e = examine(gather_options(a));
  if (!e.error.empty()) return Status::failure(e.error);
  out = make_snapshot(report_json(e.facts, e.report), host_name(), utc_now());
  return {};
}

ExitCode run_snapshot(const SnapshotArgs& a) {
  nlohmann::json snapshot;
  if (auto st = take_snapshot(a, snapshot); !st) {
    std::fprintf(stderr, "dlready snapshot: %s\n", st.error().c_str());
    return ExitCode::usage;
  }
  if (a.redact) {
    auto hide = probe_redaction_inputs(RootFs(a.root), process_environment());
    hide.hosts.push_back(host_name());  // the snapshot names the machine it was taken on, under --root too
    snapshot = Redactor(hide).apply(snapshot);
  }
  std::string text = json_text(snapshot, 2) + "\n";
  if (a.out.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return ExitCode::ok;
  }
  if (auto st = write_file_atomically(a.out, text); !st) {
    std::fprintf(stderr, "dlready snapshot: %s\n", st.error().c_str());
    return ExitCode::failed;
  }
  std::fprintf(stderr, "dlready snapshot: wrote %s (compare two with: dlready diff A B)\n", a.out.c_str());
  return ExitCode::ok;
}

ExitCode run_diff(const DiffArgs& a) {
  Stack before = read_stack(a.before), after = read_stack(a.after);
  for (const Stack* s : {&before, &after})
    if (!s->error.empty()) {
      std::fprintf(stderr, "dlready diff: %s\n", s->error.c_str());
      return ExitCode::usage;
    }
  auto changes = diff_stacks(before, after);
  auto meaning = consequences(before, after);
  auto name = [](const Stack& s, const std::string& path) {
    return s.host.empty() ? path : path + " (" + s.host + (s.created.empty() ? "" : ", " + s.created) + ")";
  };
  if (a.json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& c : changes)
      rows.push_back({{"area", c.area}, {"key", c.key}, {"before", c.before}, {"after", c.after}});
    nlohmann::json why = nlohmann::json::object();
    for (const auto& c : changes) why[c.area] = why_it_matters(c.area);
    nlohmann::json j = {{"schema", "dlready.diff/1"}, {"before", name(before, a.before)},
                        {"after", name(after, a.after)}, {"changes", rows}, {"why", why},
                        {"consequences", meaning}};
    std::printf("%s\n", json_text(j, 2).c_str());
    return changes.empty() ? ExitCode::ok : ExitCode::failed;
  }
  // Everything below comes from the two files: printed with control characters escaped.
  std::printf("before: %s\nafter:  %s\n", printable(name(before, a.before)).c_str(), printable(name(after, a.after)).c_str());
  if (changes.empty()) {
    std::printf("\nno differences in what matters to a training job (%zu items compared)\n", before.items.size());
    return ExitCode::ok;
  }
  std::string area;
  for (const auto& c : changes) {
    if (c.area != area) {
      area = c.area;
      std::printf("\n%s — %s\n", area.c_str(), why_it_matters(area).c_str());
    }
    std::printf("  %-34s %s -> %s\n", printable(c.key, 256).c_str(), c.before.empty() ? "(absent)" : printable(c.before, 512).c_str(),
                c.after.empty() ? "(absent)" : printable(c.after, 512).c_str());
  }
  if (!meaning.empty()) std::printf("\nwhat this means\n");
  for (const auto& m : meaning) std::printf("  %s\n", printable(m).c_str());
  std::printf("\n%zu difference(s)\n", changes.size());
  return ExitCode::failed;
}

}  // namespace dlready
