#include "cli/setup_command.hpp"

#include "cli/usage_hints.hpp"
#include "platform/platform_record.hpp"

namespace dlready {
namespace {

// The flags of a build that installs: how, where from, and the machine it reads.
void add_install_flags(CLI::App* cmd, SetupArgs& a) {
  cmd->add_option("--torch-index", a.torch_index,
                  "A mirror of https://download.pytorch.org/whl/ (the variants under it; default DLREADY_TORCH_INDEX)");
  cmd->add_option("--tool", a.tool, "What creates the environment and installs: auto (uv when on PATH), uv or pip")
      ->check(CLI::IsMember({"auto", "uv", "pip"}));
  cmd->add_option("--conda", a.conda, "Write ./environment.yml for a conda environment NAME and create it with "
                                      "conda or mamba when one is on PATH");
  cmd->add_flag("--offline", a.offline,
                "Plan from dlready's tables alone (default: also what the index serves, read once a day; "
                "DLREADY_OFFLINE=1 does the same)");
  cmd->add_flag("--no-verify", a.no_verify, "Install without the proof (import, CUDA, cuDNN, matmul) afterwards");
  cmd->add_option("--root", a.root, "Read this machine's files under DIR instead of / (a capture or a mounted system)")
      ->check(CLI::ExistingDirectory);
  cmd->add_flag("--load-root-drivers", a.load_root_drivers, kLoadRootDriversHelp);
}

// The words --platform takes: every platform record's setup targets.
std::vector<std::string> every_setup_target() {
  std::vector<std::string> targets;
  for (const auto& r : platform_records())
    for (auto t : r.setup_targets) targets.emplace_back(t);
  return targets;
}

}  // namespace

void add_setup_command(CLI::App& app, SetupArgs& a) {
  const PlatformRecord* here = platform_of_setup_target(this_build_target());
  const bool installs = here && here->setup_installs;
  auto* cmd = app.get_subcommand("setup");
  if (!installs)
    cmd->description("The PyTorch build that fits this machine and the commands that install and prove it "
                     "(--dry-run; also for another machine)");
  cmd->add_option("env", a.env_dir, installs ? "The virtual environment to install into" : "The virtual environment the commands make");
  cmd->add_option("--python", a.python,
                  here && here->setup_python_on_path
                      ? "Python version X.Y (default: python3 on PATH)"
                      : "Python version X.Y (default: the active environment's, else the first found)");
  cmd->add_option("--torch", a.torch, "A release (2.5) or version (2.5.1) instead of the newest that fits");
  cmd->add_option("--with", a.with, "Also install these (torchvision,torchaudio)")->delimiter(',');
  cmd->add_option("--index-url", a.index_url, "The index your tools use (default: PIP_INDEX_URL, UV_INDEX_URL)");
  cmd->add_flag("--dry-run", a.dry_run,
                installs ? "Print the plan and the commands; install nothing"
                         : "Print the plan and the commands that install it (this build installs nothing)");
  cmd->add_flag("--json", a.json,
                "The plan as JSON (schema dlready.setup-plan/1; with --candidates "
                "dlready.setup-candidates/1)");
  cmd->add_flag(
      "--candidates", a.candidates,
      "Every PyTorch build for the machine, graded: direct (the driver runs its CUDA natively), "
      "minor "
      "(through minor-version compatibility), incompatible, unavailable; installs nothing");
  cmd->add_flag("--all", a.all,
                "With --candidates: also the builds that do not run here, with why");
  cmd->add_option("--why", a.why,
                  "Why one build fits the machine or not, check by check (the index, Python, the GPUs' "
                  "kernels, the driver): torch==2.12.1+cu130, 2.12+cu130, or 2.12 for each of its variants")
      ->type_name("BUILD");
  cmd->add_option("--driver", a.driver, "Plan for another machine: its NVIDIA driver version");
  cmd->add_option("--gpu", a.gpus, "Plan for another machine: its GPUs' compute capabilities (sm_61,sm_90) or names (H100, 'RTX 4090', GH200)")
      ->delimiter(',');
  cmd->add_flag("--no-gpu", a.no_gpu, "Plan for another machine without an NVIDIA GPU");
  cmd->add_option("--platform", a.platform,
                  "Plan for linux-x86_64, linux-aarch64, win-amd64 (PowerShell's commands) or a Mac (macos-arm64, "
                  "macos-x86_64; with --macos and --python) (default: this machine's)")
      ->check(CLI::IsMember(every_setup_target()));
  cmd->add_option("--macos", a.macos, "Plan for a Mac: its macOS version (14.5)");
  cmd->add_option("--jetpack", a.jetpack, "Plan for a Jetson: its JetPack version (6.1)");
  if (installs) add_install_flags(cmd, a);
}

}  // namespace dlready
