// The Windows twin of setup_command.cpp: `dlready.exe setup --dry-run`: the PyTorch build for this Windows machine (or another given by
// flags) from dlready's tables — the win_amd64 wheels, Windows' driver floors — and the commands
// that install and prove it, in PowerShell's form. The Windows build installs nothing itself.
#include "cli/setup_command_windows.hpp"

#include <cstdio>

#include "core/json_text.hpp"
#include "core/text.hpp"
#include "diagnose/install_plan.hpp"
#include "doctor/examine.hpp"
#include "report/render.hpp"

namespace dlready {
namespace {

// A PowerShell string literal: single quotes take everything as written ('' is one quote).
std::string powershell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

// This machine as the doctor sees it: the driver, each GPU's compute capability, the Python.
Status machine_from_doctor(PlanMachine& m, std::vector<std::string>& seen, std::string& python) {
  auto e = examine_this_machine();
  if (!e.error.empty()) return Status::failure(e.error);
  const Facts& f = e.facts;
  if (Status err = machine_from_facts(f, m, seen); !err.ok()) return err;
  for (const auto& env : f.python.envs)  // the active environment first, then the order found
    if (env.python_version && (python.empty() || env.active)) python = *env.python_version;
  return {};
}

std::vector<std::string> powershell_commands(const InstallPlan& p, const WindowsSetupArgs& a, const PlanMachine& m) {
  if (!p.ok) return {};
  const std::string py = powershell_quote(a.env_dir + "\\Scripts\\python.exe");
  std::string install = "& " + py + " -m pip install " + powershell_quote(p.requirement);
  for (const auto& w : a.with) install += " " + powershell_quote(w);
  install += " --index-url " + powershell_quote(p.index_url);
  // The proof as the tutorials give it; no double quote inside (Windows PowerShell 5.1 drops them
  // from a native program's arguments).
  return {"py -" + m.python + " -m venv " + powershell_quote(a.env_dir), install,
          "& " + py + " -c \"import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available(), "
                      "torch.backends.cudnn.version()); d = 'cuda' if torch.cuda.is_available() else 'cpu'; "
                      "a = torch.randn(2000, 2000); print((a.to(d) @ a.to(d)).cpu().allclose(a @ a, rtol=1e-3, atol=1e-2))\"",
          "$env:VIRTUAL_ENV = " + powershell_quote(a.env_dir) + "; dlready.exe doctor"};
}

}  // namespace

void add_windows_setup_command(CLI::App& app, WindowsSetupArgs& a) {
  auto* cmd = app.get_subcommand("setup");
  cmd->description("The PyTorch build that fits this machine and the PowerShell commands that install and prove it "
                   "(--dry-run; also for another machine)");
  cmd->add_option("env", a.env_dir, "The virtual environment the commands make");
  cmd->add_option("--python", a.python, "Python version X.Y (default: the active environment's, else the first found)");
  cmd->add_option("--torch", a.torch, "A release (2.5) or version (2.5.1) instead of the newest that fits");
  cmd->add_option("--with", a.with, "Also install these (torchvision,torchaudio)")->delimiter(',');
  cmd->add_flag("--dry-run", a.dry_run, "Print the plan and the commands; install nothing (the Windows build's only way)");
  cmd->add_flag("--json", a.json, "The plan as JSON (schema dlready.setup-plan/1)");
  cmd->add_option("--driver", a.driver, "Plan for another machine: its NVIDIA driver version");
  cmd->add_option("--gpu", a.gpus, "Plan for another machine: its GPUs' compute capabilities (sm_61,sm_90) or names (H100, 'RTX 4090', GH200)")->delimiter(',');
  cmd->add_flag("--no-gpu", a.no_gpu, "Plan for another machine without an NVIDIA GPU");
}

ExitCode run_windows_setup(const WindowsSetupArgs& a) {
  if (!a.dry_run && !a.json) {
    std::fprintf(stderr, "dlready setup: the Windows build plans and installs nothing: add --dry-run for the plan and "
                         "the PowerShell commands that install it\n");
    return ExitCode::usage;
  }
  PlanMachine m;
  m.platform = "win-amd64";
  m.torch = a.torch;
  m.index_note = "the Windows build plans from dlready's tables";
  std::vector<std::string> seen;
  std::string python = a.python;
  bool another = !a.driver.empty() || !a.gpus.empty() || a.no_gpu;
  std::string found_python;
  Status machine = another ? machine_from_flags(a.no_gpu, a.gpus, a.driver, m, seen)
                            : machine_from_doctor(m, seen, found_python);
  if (python.empty()) python = found_python;
  if (machine.ok()) machine = check_plan_flags(python, a.with, "py launcher, conda, venvs");
  if (!machine.ok()) {
    std::fprintf(stderr, "dlready setup: %s\n", machine.error().c_str());
    return ExitCode::usage;
  }
  m.python = python;
  auto plan = plan_install(m);
  auto commands = powershell_commands(plan, a, m);
  if (a.json) {
    std::string text = json_text(install_plan_json(plan, m, a.env_dir, a.with, seen, commands), 2) + "\n";
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    std::fputs(render_plan_text(plan, seen, commands, {", win_amd64", " (PowerShell)"}).c_str(), stdout);
  }
  return plan.ok ? ExitCode::ok : ExitCode::failed;
}

}  // namespace dlready
