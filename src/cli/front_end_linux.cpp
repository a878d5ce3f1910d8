// The Linux build's side of the front end (cli/front_end.hpp): every command of the table, the
// LibTorch ones through the module (cli/torch_module.cpp).
#include <memory>

#include "cli/capture_command.hpp"
#include "cli/command_table.hpp"
#include "cli/doctor_command.hpp"
#include "cli/explain_command.hpp"
#include "cli/front_end.hpp"
#include "cli/launch_command.hpp"
#include "setup/lock_hashes.hpp"
#include "compat/compat.hpp"
#include "cli/module_command.hpp"
#include "cli/security_command.hpp"
#include "cli/setup_command.hpp"
#include "setup/setup_install.hpp"
#include "cli/shell_completion.hpp"
#include "cli/snapshot_command.hpp"
#include "cli/torch_module.hpp"
#include "cli/train_command.hpp"
#include "cli/verify_command.hpp"
#include "probe/linux/scan_cache.hpp"

namespace dlready {
namespace {

CommandGroup model_commands() {
  struct Args {
    ModelOptions export_model, eval, quantize;
  };
  auto a = std::make_shared<Args>();
  return {[a](CLI::App& app) { add_model_commands(app, a->export_model, a->eval, a->quantize); },
          [a](const CLI::App& app) -> std::optional<int> {
            if (app.got_subcommand("export-model")) return to_int(run_model(a->export_model));
            if (app.got_subcommand("eval")) return to_int(run_model(a->eval));
            if (app.got_subcommand("quantize")) return to_int(run_model(a->quantize));
            return std::nullopt;
          },
          {"export-model", "eval", "quantize"}};
}

CommandGroup launch_command() {
  struct Args {
    LaunchOptions launch;
    LaunchAuditArgs audit;
    LaunchSnapshotArgs snapshot;
  };
  auto a = std::make_shared<Args>();
  return {[a](CLI::App& app) { add_launch_command(app, a->launch, a->audit, a->snapshot); },
          [a](const CLI::App& app) -> std::optional<int> {
            if (!app.got_subcommand("launch")) return std::nullopt;
            use_snapshot_for_preflight(a->launch, a->snapshot);
            Status st = choose_local_ranks(a->launch, a->snapshot);
            if (st) st = use_job_token(a->launch, a->snapshot);
            if (!st) {
              std::fprintf(stderr, "dlready launch: %s\n", st.error().c_str());
              return to_int(ExitCode::usage);
            }
            return run_audited_launch(a->launch, a->audit);
          },
          {"launch"}};
}

// completion and man: generated from the parsed program's own command table (so no commands are
// named: this group is wired with every other one).
CommandGroup shell_commands() {
  auto shell = std::make_shared<std::string>();
  return {[shell](CLI::App& app) {
            app.get_subcommand("completion")
                ->add_option("shell", *shell, "bash, zsh or fish")
                ->required()
                ->check(CLI::IsMember({"bash", "zsh", "fish"}));
          },
          [shell](const CLI::App& app) -> std::optional<int> {
            if (app.got_subcommand("completion")) return std::fputs(completion_script(app, *shell).c_str(), stdout) < 0;
            if (app.got_subcommand("man")) return std::fputs(man_page(app, DLREADY_VERSION, kCompatTableDate).c_str(), stdout) < 0;
            return std::nullopt;
          }};
}

template <class Args, class Add, class Run>
CommandGroup shared_args(Add add, Run run, std::vector<std::string_view> commands) {
  auto args = std::make_shared<Args>();
  return {[args, add](CLI::App& app) { add(app, *args); },
          [args, run](const CLI::App& app) -> std::optional<int> {
            if (auto rc = run(app, *args)) return to_int(*rc);
            return std::nullopt;
          },
          std::move(commands)};
}

}  // namespace

const PlatformFrontEnd& this_platform() {
  static const PlatformFrontEnd kLinuxFrontEnd{
      kLinux, "dlready — make a GPU deep-learning machine ready and prove it", "libcuda/libnvidia-ml",
      "Replace user names, home directories, host names, addresses and secret-looking values with placeholders", true};
  return kLinuxFrontEnd;
}

std::optional<int> start_process(int, char**) { return std::nullopt; }

std::vector<CommandGroup> platform_commands() {
  return {doctor_command_group(),
          explain_command_group(),
          single_command<TrainOptions>("train", add_train_command, run_train),
          single_command<VerifyOptions>("verify", add_verify_command, run_verify),
          single_command<BenchOptions>("bench", add_bench_command, run_bench),
          model_commands(),
          launch_command(),
          snapshot_command_group(find_lock_hashes),
          single_command<CaptureArgs>("capture", add_capture_command, run_capture),
          single_command<SetupArgs>("setup", add_setup_command, [](const SetupArgs& a) { return run_setup(a, venv_installer()); }),
          shared_args<SecurityArgs>(add_security_commands, run_security_command, {"keygen", "rekey", "audit"}),
          shared_args<ModuleArgs>(add_module_commands, run_module_command, {"module"}),
          shell_commands()};
}

void complete_live_options(GatherOptions& options, bool use_cache) {
  if (use_cache) options.cache_file = default_scan_cache_file(options.env);
  if (options.root == "/") describe_own_module(options);  // what `dlready train` would load
}

}  // namespace dlready
