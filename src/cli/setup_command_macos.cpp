// The macOS twin of setup_command.cpp: `dlready setup --dry-run` on a Mac plans from what the doctor
// reads here (the macOS version through the compatibility shim, Apple Silicon or Intel, the active
// Python) or from flags, with diagnose/install_plan_macos.cpp deciding. Cross-built; not run on a Mac.
#include "cli/setup_command_macos.hpp"

#include <cstdio>
#include <string_view>

#include "core/json_text.hpp"
#include "core/text.hpp"
#include "diagnose/install_plan.hpp"
#include "doctor/examine.hpp"
#include "report/render.hpp"

namespace dlready {
namespace {

// This Mac as the doctor reads it: its macOS, its processor, the active environment's Python (else
// the first found).
Status mac_from_doctor(PlanMachine& m, std::vector<std::string>& seen, std::string& python) {
  auto e = examine_this_machine();
  if (!e.error.empty()) return Status::failure(e.error);
  if (!e.facts.macos) return Status::failure("this machine was not read as a Mac");
  const MacosFacts& mac = *e.facts.macos;
  m.macos = effective_macos_version(mac).value_or("");
  m.platform = mac.apple_silicon == false ? "macos-x86_64" : "macos-arm64";
  for (const auto& env : e.facts.python.envs)
    if (env.python_version && (python.empty() || env.active)) python = *env.python_version;
  seen.push_back("this Mac: " + m.platform.substr(6) + ", macOS " + (m.macos.empty() ? "unknown" : m.macos) +
                 (mac.translated == true ? " (this shell runs under Rosetta: the plan is for the native arm64)" : ""));
  return {};
}

}  // namespace

void add_macos_setup_command(CLI::App& app, MacosSetupArgs& a) {
  auto* cmd = app.get_subcommand("setup");
  cmd->description("The PyTorch build that fits this Mac (MPS where it works) and the commands that install and "
                   "prove it (--dry-run; also for another Mac)");
  cmd->add_option("env", a.env_dir, "The virtual environment the commands make");
  cmd->add_option("--python", a.python, "Python version X.Y (default: the active environment's, else the first found)");
  cmd->add_option("--torch", a.torch, "A release (2.8) or version (2.8.0) instead of the newest that fits");
  cmd->add_option("--with", a.with, "Also install these (torchvision,torchaudio)")->delimiter(',');
  cmd->add_option("--index-url", a.index_url, "A PyPI mirror your tools use (default: PyPI)");
  cmd->add_flag("--dry-run", a.dry_run, "Print the plan and the commands; install nothing (the macOS build's only way)");
  cmd->add_flag("--json", a.json, "The plan as JSON (schema dlready.setup-plan/1)");
  cmd->add_option("--platform", a.platform, "Plan for another Mac: macos-arm64 or macos-x86_64")
      ->check(CLI::IsMember({"macos-arm64", "macos-x86_64"}));
  cmd->add_option("--macos", a.macos, "Plan for another Mac: its macOS version (14.5)");
}

ExitCode run_macos_setup(const MacosSetupArgs& a) {
  if (!a.dry_run && !a.json) {
    std::fprintf(stderr, "dlready setup: the macOS build plans and installs nothing: add --dry-run for the plan and "
                         "the commands that install it\n");
    return ExitCode::usage;
  }
  PlanMachine m;
  m.torch = a.torch;
  m.index_url = a.index_url;
  std::vector<std::string> seen;
  std::string python = a.python;
  Status machine;
  if (!a.platform.empty() || !a.macos.empty()) {
    // Checked as the Linux build checks it: the value is printed in the plan.
    machine = a.macos.empty() ? Status::failure("--platform " + a.platform + " needs the Mac's macOS version: --macos 14.5")
                              : check_macos_version(a.macos);
    m.platform = a.platform.empty() ? "macos-arm64" : a.platform;
    m.macos = a.macos;
    seen.push_back("the Mac given: " + m.platform.substr(6) + ", macOS " + a.macos);
  } else {
    machine = mac_from_doctor(m, seen, python);
  }
  // The same checks as every platform's setup (install_plan.hpp): the commands are quoted for the shell.
  if (machine.ok()) machine = check_plan_flags(python, a.with, "Homebrew, python.org, conda, venvs", a.index_url);
  if (!machine.ok()) {
    std::fprintf(stderr, "dlready setup: %s\n", machine.error().c_str());
    return ExitCode::usage;
  }
  m.python = python;
  auto plan = plan_install(m);
  auto commands = mac_install_commands(plan, a.env_dir, a.with, m.python);
  if (a.json) {
    std::string text = json_text(install_plan_json(plan, m, a.env_dir, a.with, seen, commands), 2) + "\n";
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    std::fputs(render_plan_text(plan, seen, commands, {", " + m.platform, ""}).c_str(), stdout);
  }
  return plan.ok ? ExitCode::ok : ExitCode::failed;
}

}  // namespace dlready
