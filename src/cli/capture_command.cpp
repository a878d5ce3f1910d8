#include "cli/capture_command.hpp"

#include <cstdio>

#include "cli/capture_output.hpp"
#include "cli/command_table.hpp"
#include "cli/front_end.hpp"
#include "cli/usage_hints.hpp"
#include "core/json_text.hpp"
#include "core/text.hpp"
#include "doctor/examine.hpp"
#include "platform/platform_record.hpp"
#include "report/render.hpp"

namespace dlready {

void add_capture_command(CLI::App& app, CaptureArgs& a) {
  auto* cmd = app.get_subcommand("capture");
  const PlatformFrontEnd& here = this_platform();
  cmd->add_option("out", a.out,
                  here.reads_roots ? "OUT.tar.gz (or .tgz), else a new folder (default: dlready-capture-<UTC date and time>.tar.gz here)"
                                   : "A new folder (default: dlready-capture-<UTC date and time> here)");
  if (here.reads_roots)
    cmd->add_option("--root", a.root, "Capture the machine under DIR instead of / (a mounted system, or a capture to capture again)")
        ->check(CLI::ExistingDirectory);
  cmd->add_flag("--no-redact", a.no_redact, "Keep user names, home directories, host names and addresses");
  cmd->add_flag("--no-driver-probe", a.no_driver_probe, "Do not load " + std::string(here.driver_libraries) + " (files only)");
  cmd->add_option("--probe-timeout-ms", a.timeout_ms, "Kill a driver probe that takes longer (ms)")
      ->check(CLI::Range(50, 600000));
  if (here.platform != kLinux) return;  // ld.so's resolution and a root's NVIDIA libraries are Linux's
  cmd->add_flag("--load-root-drivers", a.load_root_drivers, kLoadRootDriversHelp);
  cmd->add_option("--binary", a.binaries, "Also capture this program's shared libraries as ld.so resolves them");
}

namespace {

void say_error(const std::string& what) { std::fprintf(stderr, "dlready capture: %s\n", what.c_str()); }

// capture.json: the machine's answers that no file holds, and who and what the doctor examined.
CaptureManifest manifest_of(const Examination& e, const GatherOptions& opt, const AccessLog& log, bool redacted) {
  CaptureManifest m;
  m.dlready_version = DLREADY_VERSION;
  m.created = utc_now();
  m.redacted = redacted;
  m.environment = e.facts.env.vars;
  m.user_name = e.user.name;
  m.uid = e.user.uid;
  m.gids = e.user.gids;
  m.arch = e.facts.os.arch;
  m.own_module = opt.own_module;
  m.children = log.children;
  m.gpu_code = log.gpu_code;
  m.platform = std::string(platform_of(e.facts).name);
  m.sysctl = log.sysctl;
  m.metal = log.metal;
  if (platform_of(e.facts).platform == Platform::windows) m.windows = log.windows;
  return m;
}

}  // namespace

ExitCode run_capture(const CaptureArgs& given) {
  CaptureArgs a = given;
  if (a.out.empty()) a.out = default_capture_name(utc_now("%Y%m%d-%H%M%S"));
  if (auto refused = refuse_capture(a)) {
    say_error(*refused);
    return ExitCode::usage;
  }
  AccessLog log;
  GatherOptions opt;
  opt.root = a.root;
  opt.env = process_environment();
  opt.probe_timeout_ms = a.timeout_ms;
  opt.driver_probe = !a.no_driver_probe;
  opt.load_root_drivers = a.load_root_drivers;
  opt.binaries = a.binaries;
  opt.record = &log;
  complete_live_options(opt, false);  // no scan cache: a cached answer would leave its files out
  opt.redaction_inputs = !a.no_redact;
  auto e = examine(opt);
  if (!e.error.empty()) {
    say_error(e.error);
    return ExitCode::usage;
  }
  std::optional<Redactor> redactor;
  if (e.redaction) redactor.emplace(capture_redaction(*e.redaction));
  auto report = report_json(e.facts, e.report);
  CaptureOutput output;
  output.log = &log;
  output.doctor_json = json_text(redactor ? redactor->apply(report) : report, 2) + "\n";
  output.manifest = manifest_of(e, opt, log, redactor.has_value());
  std::string wrote;
  if (auto s = write_capture_output(a, output, redactor, wrote); !s.ok()) {
    say_error(s.error() + " (nothing was written)");
    return ExitCode::failed;
  }
  std::printf("dlready capture: wrote %s (%s)\n", printable(a.out).c_str(), wrote.c_str());
  std::printf("  %s\n", redactor ? ("hidden: " + redactor->summary()).c_str()
                                 : "not redacted (--no-redact): it holds this machine's names");
  std::printf("  replay it: %s\n", capture_replay_command(a.out).c_str());
  return ExitCode::ok;
}

}  // namespace dlready
