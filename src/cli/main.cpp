// dlready: make a GPU deep-learning machine ready and prove it.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "cli/capture_command.hpp"
#include "cli/doctor_command.hpp"
#include "cli/launch_command.hpp"
#include "cli/module_command.hpp"
#include "cli/security_command.hpp"
#include "cli/setup_command.hpp"
#include "cli/snapshot_command.hpp"
#include "cli/train_command.hpp"
#include "cli/shell_completion.hpp"
#include "cli/usage_hints.hpp"
#include "cli/verify_command.hpp"

int main(int argc, char** argv) {
  CLI::App app{"dlready — make a GPU deep-learning machine ready and prove it"};
  app.require_subcommand(1);
  app.set_version_flag("--version", DLREADY_VERSION);
  // Every option's help shows its default (subcommands inherit this).
  app.option_defaults()->always_capture_default();
  dlready::DoctorArgs doctor;
  dlready::add_doctor_command(app, doctor);
  dlready::TrainOptions train;
  dlready::add_train_command(app, train);
  dlready::VerifyOptions verify;
  dlready::add_verify_command(app, verify);
  dlready::BenchOptions bench;
  dlready::add_bench_command(app, bench);
  dlready::ModelOptions export_model, eval, quantize;
  dlready::add_model_commands(app, export_model, eval, quantize);
  dlready::LaunchOptions launch;
  dlready::LaunchAuditArgs launch_audit;
  dlready::LaunchSnapshotArgs launch_snapshot;
  dlready::add_launch_command(app, launch, launch_audit, launch_snapshot);
  dlready::SnapshotArgs snapshot;
  dlready::DiffArgs diff;
  dlready::ExportArgs exp;
  dlready::add_snapshot_commands(app, snapshot, diff, exp);
  dlready::CaptureArgs capture;
  dlready::add_capture_command(app, capture);
  dlready::SetupArgs setup;
  dlready::add_setup_command(app, setup);
  dlready::SecurityArgs security;
  dlready::add_security_commands(app, security);
  dlready::ModuleArgs module;
  dlready::add_module_commands(app, module);
  std::string shell;
  auto* completion = app.add_subcommand("completion", "Print shell completion: source <(dlready completion bash); zsh and "
                                                      "fish too (cmake --install puts all three where the shells look)");
  completion->add_option("shell", shell, "bash, zsh or fish")->required()->check(CLI::IsMember({"bash", "zsh", "fish"}));
  app.add_subcommand("man", "Print the dlready(1) manual page: man -l <(dlready man)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // A mistyped command or option gets one line that names the likely intent.
    if (auto hint = dlready::usage_hint(app, argc, argv, e.what()); !hint.empty() && e.get_exit_code() != 0) {
      std::fprintf(stderr, "%s\n", hint.c_str());
      return 2;
    }
    int rc = app.exit(e);
    // Help and --version are successes; every real parse error is ExitCode::usage (2).
    return rc == 0 ? 0 : 2;
  }
  if (app.got_subcommand("doctor")) return dlready::to_int(dlready::run_doctor(doctor));
  if (app.got_subcommand("capture")) return dlready::to_int(dlready::run_capture(capture));
  if (app.got_subcommand("train")) return dlready::to_int(dlready::run_train(train));
  if (app.got_subcommand("verify")) return dlready::to_int(dlready::run_verify(verify));
  if (app.got_subcommand("bench")) return dlready::to_int(dlready::run_bench(bench));
  if (app.got_subcommand("export-model")) return dlready::to_int(dlready::run_model(export_model));
  if (app.got_subcommand("eval")) return dlready::to_int(dlready::run_model(eval));
  if (app.got_subcommand("quantize")) return dlready::to_int(dlready::run_model(quantize));
  if (app.got_subcommand("launch")) {
    dlready::use_snapshot_for_preflight(launch, launch_snapshot);
    if (auto st = dlready::use_job_token(launch, launch_snapshot); !st) {
      std::fprintf(stderr, "dlready launch: %s\n", st.error().c_str());
      return 2;
    }
    return dlready::run_audited_launch(launch, launch_audit);
  }
  if (app.got_subcommand("completion")) return std::fputs(dlready::completion_script(app, shell).c_str(), stdout) < 0 ? 1 : 0;
  if (app.got_subcommand("man")) return std::fputs(dlready::man_page(app, DLREADY_VERSION).c_str(), stdout) < 0 ? 1 : 0;
  if (app.got_subcommand("snapshot")) return dlready::to_int(dlready::run_snapshot(snapshot));
  if (app.got_subcommand("diff")) return dlready::to_int(dlready::run_diff(diff));
  if (app.got_subcommand("export")) return dlready::to_int(dlready::run_export(exp));
  if (app.got_subcommand("setup")) return dlready::to_int(dlready::run_setup(setup));
  if (auto rc = dlready::run_security_command(app, security)) return dlready::to_int(*rc);
  if (auto rc = dlready::run_module_command(app, module)) return dlready::to_int(*rc);
  return 2;
}
