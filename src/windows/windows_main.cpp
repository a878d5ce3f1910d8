// dlready.exe: the doctor half on Windows, native. The LibTorch commands need a LibTorch built for
// Linux (the tutorials' second way, WSL2, runs them): here they say so in one line, exit 3.
#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <io.h>
#include <windows.h>

#include <cstdio>
#include <cstdlib>
#include <optional>

#include "core/exit_code.hpp"
#include "core/json_text.hpp"
#include "core/redact.hpp"
#include "diagnose/rules.hpp"
#include "report/render.hpp"
#include "windows/windows_commands.hpp"
#include "windows/windows_probes.hpp"

namespace dlready {
namespace {

struct WindowsDoctorArgs {
  bool json = false, markdown = false, no_color = false, list_findings = false, no_driver_probe = false, redact = false;
  std::string fail_on = "error";
  int timeout_ms = 10000;
};

ExitCode run_windows_doctor(const WindowsDoctorArgs& a) {
  if (a.list_findings) {
    std::fputs(render_findings_catalogue_markdown().c_str(), stdout);
    return ExitCode::ok;
  }
  WindowsGatherOptions options;
  options.env = windows_environment();
  options.driver_probe = !a.no_driver_probe;
  options.probe_timeout_ms = a.timeout_ms;
  Facts facts = gather_windows_facts(options);
  Report report = diagnose(facts);
  std::optional<Redactor> redactor;
  if (a.redact) redactor.emplace(windows_redaction_inputs(options.env));
  std::string out = a.json ? (redactor ? json_text(redactor->apply(report_json(facts, report)), 2) + "\n"
                                       : render_json(facts, report))
                    : a.markdown ? render_markdown(facts, report, redactor ? redactor->summary() : "")
                                 : render_text(facts, report, {::_isatty(1) && !std::getenv("NO_COLOR") && !a.no_color});
  if (redactor && !a.json) out = redactor->apply(out);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  Severity threshold = a.fail_on == "warning" ? Severity::warning : Severity::error;
  for (const auto& x : report.findings)
    if (x.severity >= threshold) return ExitCode::failed;
  return ExitCode::ok;
}

// What the Linux binary has and this one does not, and why: one line, the way to get it.
constexpr const char* kNeedsLinuxTorch =
    "runs on Linux only (its LibTorch is built for Linux); on Windows run it in WSL2 (wsl --install, then the "
    "Linux dlready inside) or on a Linux machine";
constexpr const char* kNotYet = "is not in the Windows build yet; run it in WSL2 or on a Linux machine";
const char* const kLinuxOnly[][3] = {
    {"train", "Train the tutorials' Fashion-MNIST model", kNeedsLinuxTorch},
    {"verify", "Prove the stack with real work on each device", kNeedsLinuxTorch},
    {"bench", "Measure the machine's and the training step's speed", kNeedsLinuxTorch},
    {"eval", "Evaluate a trained model", kNeedsLinuxTorch},
    {"quantize", "Quantize a trained model to int8", kNeedsLinuxTorch},
    {"export-model", "Write a trained model for PyTorch", kNeedsLinuxTorch},
    {"launch", "Run a command as the ranks of a data-parallel job", kNeedsLinuxTorch},
    {"capture", "Write down everything the doctor read", kNotYet},
};

}  // namespace
}  // namespace dlready

int main(int argc, char** argv) {
  using namespace dlready;
  // The reports are UTF-8 with "\n" line ends on every platform (the JSON and Markdown are the same
  // bytes as on Linux); the console shows UTF-8 (the marks ✓ ✗).
  ::_setmode(::_fileno(stdout), _O_BINARY);
  ::SetConsoleOutputCP(CP_UTF8);
  // The driver probes' children: this program again, before anything else runs.
  if (argc == 4 && std::string(argv[1]) == "--driver-child") return run_windows_driver_child(argv[2], argv[3]);
  CLI::App app{"dlready — make a GPU deep-learning machine ready and prove it (Windows: the doctor)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", DLREADY_VERSION);
  WindowsDoctorArgs doctor;
  auto* cmd = app.add_subcommand("doctor", "Probe the GPU deep-learning stack, diagnose it, recommend fixes");
  auto* j = cmd->add_flag("--json", doctor.json, "Machine-readable report (schema in docs/json-schema.md)");
  cmd->add_flag("--markdown", doctor.markdown, "Markdown report, ready to paste into a bug report")->excludes(j);
  cmd->add_option("--fail-on", doctor.fail_on, "Exit 1 on findings of this severity or worse")
      ->check(CLI::IsMember({"error", "warning"}));
  cmd->add_flag("--no-color", doctor.no_color, "No ANSI colours (NO_COLOR is honoured too)");
  cmd->add_flag("--list-findings", doctor.list_findings, "Print the catalogue of finding ids (Markdown) and exit");
  cmd->add_option("--probe-timeout-ms", doctor.timeout_ms, "Kill a driver probe that takes longer (ms)")
      ->check(CLI::Range(50, 600000));
  cmd->add_flag("--no-driver-probe", doctor.no_driver_probe, "Do not load nvcuda.dll/nvml.dll (files only)");
  cmd->add_flag("--redact", doctor.redact,
                "Replace the user name, profile folder, computer name and secret-looking values with placeholders "
                "(for a public issue)");
  WindowsSnapshotArgs snapshot;
  add_windows_snapshot_commands(app, snapshot);
  WindowsSetupArgs setup;
  add_windows_setup_command(app, setup);
  for (const auto& [name, what, why] : kLinuxOnly) app.add_subcommand(name, what)->allow_extras();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (cmd->parsed()) return to_int(run_windows_doctor(doctor));
  if (app.got_subcommand("setup")) return to_int(run_windows_setup(setup));
  for (const char* name : {"snapshot", "diff", "export"})
    if (app.got_subcommand(name)) return to_int(run_windows_snapshot_command(app, snapshot));
  for (const auto& [name, what, why] : kLinuxOnly)
    if (app.got_subcommand(name)) {
      std::fprintf(stderr, "dlready %s: %s; here: dlready doctor\n", name, why);
      return to_int(ExitCode::cannot_load);
    }
  return to_int(ExitCode::usage);
}
