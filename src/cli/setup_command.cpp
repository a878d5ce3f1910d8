#include "cli/setup_command.hpp"

#include <cstdio>

#include "cli/usage_hints.hpp"
#include "core/json_text.hpp"
#include "report/render.hpp"
#include "setup/setup_install.hpp"

namespace dlready {

void add_setup_command(CLI::App& app, SetupArgs& a) {
  auto* cmd = app.get_subcommand("setup");
  cmd->add_option("env", a.env_dir, "The virtual environment to install into");
  cmd->add_option("--python", a.python, "Python version X.Y (default: python3 on PATH)");
  cmd->add_option("--torch", a.torch, "A release (2.5) or version (2.5.1) instead of the newest that fits");
  cmd->add_option("--with", a.with, "Also install these (torchvision,torchaudio)")->delimiter(',');
  cmd->add_option("--index-url", a.index_url, "The index your tools use (default: PIP_INDEX_URL, UV_INDEX_URL)");
  cmd->add_option("--torch-index", a.torch_index,
                  "A mirror of https://download.pytorch.org/whl/ (the variants under it; default DLREADY_TORCH_INDEX)");
  cmd->add_option("--tool", a.tool, "What creates the environment and installs: auto (uv when on PATH), uv or pip")
      ->check(CLI::IsMember({"auto", "uv", "pip"}));
  cmd->add_option("--conda", a.conda, "Write ./environment.yml for a conda environment NAME and create it with "
                                      "conda or mamba when one is on PATH");
  cmd->add_flag("--dry-run", a.dry_run, "Print the plan and the commands; install nothing");
  cmd->add_flag("--offline", a.offline,
                "Plan from dlready's tables alone (default: also what the index serves, read once a day; "
                "DLREADY_OFFLINE=1 does the same)");
  cmd->add_flag("--no-verify", a.no_verify, "Install without the proof (import, CUDA, cuDNN, matmul) afterwards");
  cmd->add_flag("--json", a.json, "The plan as JSON (schema dlready.setup-plan/1)");
  cmd->add_option("--driver", a.driver, "Plan for another machine: its NVIDIA driver version");
  cmd->add_option("--gpu", a.gpus, "Plan for another machine: its GPUs' compute capabilities (sm_61,sm_90) or names (H100, 'RTX 4090', GH200)")
      ->delimiter(',');
  cmd->add_flag("--no-gpu", a.no_gpu, "Plan for another machine without an NVIDIA GPU");
  cmd->add_option("--platform", a.platform,
                  "linux-x86_64, linux-aarch64, or a Mac (macos-arm64, macos-x86_64; with --macos and --python) "
                  "(default: this machine's)")
      ->check(CLI::IsMember({"linux-x86_64", "linux-aarch64", "macos-arm64", "macos-x86_64"}));
  cmd->add_option("--macos", a.macos, "Plan for a Mac: its macOS version (14.5)");
  cmd->add_option("--jetpack", a.jetpack, "Plan for a Jetson: its JetPack version (6.1)");
  cmd->add_option("--root", a.root, "Read this machine's files under DIR instead of / (a capture or a mounted system)")
      ->check(CLI::ExistingDirectory);
  cmd->add_flag("--load-root-drivers", a.load_root_drivers, kLoadRootDriversHelp);
}


ExitCode run_setup(const SetupArgs& a) {
  // Refused before anything is read, planned or printed, as the other refusals are.
  if (plans_another_machine(a) && !a.dry_run && !a.json) {
    std::fprintf(stderr, "dlready setup: --driver/--gpu/--no-gpu/--platform macos-* plan for another machine: add "
                         "--dry-run (an install here follows this machine)\n");
    return ExitCode::usage;
  }
  PlanMachine m;
  std::vector<std::string> seen;
  if (Status planned = plan_machine(a, m, seen); !planned.ok()) {
    std::fprintf(stderr, "dlready setup: %s\n", planned.error().c_str());
    return ExitCode::usage;
  }
  // The dry run refuses what the install would refuse, with the same line and status, before any plan.
  if (a.conda.empty() && !plans_another_machine(a))
    if (Status target = check_target(a.env_dir, m.python); !target.ok()) {
      std::fprintf(stderr, "dlready setup: %s\n", target.error().c_str());
      return ExitCode::usage;
    }
  auto plan = plan_install(m);
  auto commands = commands_of(plan, a, m);
  if (a.json) {
    std::string text = json_text(plan_json(plan, m, a, seen, commands), 2) + "\n";
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    PlanWording words;
    if (plans_another_machine(a)) words.machine = "the machine given";
    std::fputs(render_plan_text(plan, seen, a.dry_run ? commands : std::vector<std::string>{}, words).c_str(), stdout);
  }
  if (!plan.ok) return ExitCode::failed;
  if (a.dry_run || a.json) return ExitCode::ok;
  InstallRequest req;
  req.env_dir = a.env_dir, req.python = m.python, req.with = a.with, req.tool = a.tool, req.verify = !a.no_verify;
  req.expect_gpu = !m.gpus.empty();
  req.conda_name = a.conda;
  std::fflush(stdout);
  return a.conda.empty() ? carry_out(plan, req) : carry_out_conda(plan, req);
}

}  // namespace dlready
