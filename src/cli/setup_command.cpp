#include "cli/setup_command.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "core/json_text.hpp"
#include "core/process_runner.hpp"
#include "core/text.hpp"
#include "cli/setup_index.hpp"
#include "cli/setup_install.hpp"
#include "diagnose/install_plan.hpp"
#include "diagnose/rules.hpp"
#include "doctor/examine.hpp"

namespace dlready {
namespace {

// The Python `python3 -m venv` would use: python3 on PATH, its version from the file the link ends
// at (python3 -> python3.11). Runs nothing.
std::string path_python_version() {
  const char* path = std::getenv("PATH");
  auto python3 = find_on_path("python3", path ? path : "");
  char real[PATH_MAX];
  if (!python3 || !::realpath(python3->c_str(), real)) return "";
  std::string name = real;
  name = name.substr(name.rfind('/') + 1);
  if (name.rfind("python", 0) == 0 && split(name.substr(6), '.').size() == 2) return name.substr(6);
  return "";
}

std::string this_platform() {
  utsname u{};
  ::uname(&u);
  return std::string("linux-") + (std::string(u.machine) == "aarch64" ? "aarch64" : "x86_64");
}

bool plans_another_machine(const SetupArgs& a) { return !a.driver.empty() || !a.gpus.empty() || a.no_gpu; }

// The machine to plan for: the flags', or this one as the doctor sees it. "" when it can be read.
std::string machine_of(const SetupArgs& a, PlanMachine& m, std::vector<std::string>& seen) {
  if (plans_another_machine(a)) {
    if (a.no_gpu && (!a.gpus.empty() || !a.driver.empty())) return "--no-gpu goes with neither --gpu nor --driver";
    if (!a.no_gpu && a.gpus.empty()) return "--driver needs --gpu sm_XY[,sm_XY] (or --no-gpu for a CPU-only machine)";
    for (const auto& g : a.gpus) {
      for (const auto& one : split(g, ',')) {
        auto cc = parse_compute_capability(one);
        if (!cc) return "--gpu " + one + " is not a compute capability (sm_61, 8.6 or 90)";
        m.gpus.push_back(*cc);
      }
    }
    if (!a.driver.empty()) {
      if (!parse_int(split(a.driver, '.').front())) return "--driver " + a.driver + " is not a driver version (550.54.15)";
      m.driver = a.driver;
    }
    seen.push_back("the machine given: " + (a.no_gpu ? std::string("no GPU") : "GPUs " + join(a.gpus, ",")) +
                   (a.driver.empty() ? "" : ", driver " + a.driver));
    return "";
  }
  GatherOptions opt;
  opt.root = a.root;
  opt.env = process_environment();
  auto e = examine(opt);
  if (!e.error.empty()) return e.error;
  Derived d = derive(e.facts);
  m.driver = d.driver_version;
  for (const auto& g : d.gpu_archs) {
    m.gpus.push_back({g.major, g.minor});
    seen.push_back(g.label + ": compute capability " + std::to_string(g.major) + "." + std::to_string(g.minor) +
                   " (" + g.source + ")");
  }
  if (d.gpu_evidence && d.gpu_archs.empty())
    return "an NVIDIA GPU is here but its compute capability is unknown (see dlready doctor); plan with --gpu sm_XY";
  seen.push_back(m.gpus.empty() ? "this machine: no NVIDIA GPU (dlready doctor)"
                                : "this machine: driver " + d.driver_version.value_or("unknown"));
  return "";
}

nlohmann::json plan_json(const InstallPlan& p, const PlanMachine& m, const SetupArgs& a,
                         const std::vector<std::string>& seen, const std::vector<std::string>& commands) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& g : m.gpus) gpus.push_back("sm_" + std::to_string(g.first) + std::to_string(g.second));
  return {{"schema", "dlready.setup-plan/1"},
          {"ok", p.ok},
          {"error", p.error},
          {"machine", {{"driver", m.driver ? nlohmann::json(*m.driver) : nlohmann::json()}, {"gpus", gpus},
                       {"python", m.python}, {"platform", m.platform}, {"seen", seen}}},
          {"release", p.release},
          {"variant", p.variant},
          {"cuda", p.cuda},
          {"requirement", p.requirement},
          {"with", a.with},
          {"index_url", p.index_url},
          {"environment", a.env_dir},
          {"why", p.why},
          {"warnings", p.warnings},
          {"commands", commands}};
}

// What installs the plan into ENV and proves it, as the tutorials do: a fresh environment, the
// install from the plan's index, then version, CUDA, cuDNN and a matmul checked against the CPU.
std::vector<std::string> commands_of(const InstallPlan& p, const SetupArgs& a, const PlanMachine& m) {
  if (!p.ok) return {};
  // Every argument quoted for the shell: a user copies these lines, and ENV or --with may hold
  // anything a shell would act on.
  std::vector<std::string> install = {a.env_dir + "/bin/python", "-m", "pip", "install", p.requirement};
  install.insert(install.end(), a.with.begin(), a.with.end());
  install.insert(install.end(), {"--index-url", p.index_url});
  std::string py = shell_quote(a.env_dir + "/bin/python");
  return {shell_join({"python" + m.python, "-m", "venv", a.env_dir}), shell_join(install),
          py + " -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available(), "
               "torch.backends.cudnn.version()); d = \"cuda\" if torch.cuda.is_available() else \"cpu\"; "
               "a = torch.randn(2000, 2000); print((a.to(d) @ a.to(d)).cpu().allclose(a @ a, rtol=1e-3, atol=1e-2))'",
          "VIRTUAL_ENV=" + shell_quote(a.env_dir) + " dlready doctor"};
}

void print_plan(const InstallPlan& p, const std::vector<std::string>& seen, const std::vector<std::string>& commands) {
  std::printf("dlready setup — the PyTorch build for this machine, and why\n");
  for (const auto& s : seen) std::printf("  seen: %s\n", s.c_str());
  if (!p.ok) {
    std::printf("  no plan: %s\n", p.error.c_str());
    return;
  }
  std::printf("  plan: %s (%s) from %s\n", p.requirement.c_str(), p.variant.c_str(), p.index_url.c_str());
  for (const auto& w : p.why) std::printf("  why:  %s\n", w.c_str());
  for (const auto& w : p.warnings) std::printf("  note: %s\n", w.c_str());
  if (!commands.empty()) std::printf("  commands:\n");
  for (const auto& c : commands) std::printf("    %s\n", c.c_str());
}

}  // namespace

void add_setup_command(CLI::App& app, SetupArgs& a) {
  auto* cmd = app.add_subcommand("setup", "Install the PyTorch that fits this machine into a virtual environment and "
                                          "prove it (--dry-run: the plan only, also for another machine)");
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
  cmd->add_option("--gpu", a.gpus, "Plan for another machine: its GPUs' compute capabilities (sm_61,sm_90)")
      ->delimiter(',');
  cmd->add_flag("--no-gpu", a.no_gpu, "Plan for another machine without an NVIDIA GPU");
  cmd->add_option("--platform", a.platform, "linux-x86_64 or linux-aarch64 (default: this machine's)")
      ->check(CLI::IsMember({"linux-x86_64", "linux-aarch64"}));
  cmd->add_option("--root", a.root, "Read this machine's files under DIR instead of / (test seam)")
      ->check(CLI::ExistingDirectory);
}

namespace {

// A value that goes into pip's argument list and environment.yml: no spaces, quotes or control
// characters (a newline would add a line to the file).
std::string refuse_value(const std::string& flag, const std::string& v) {
  for (unsigned char c : v)
    if (c <= ' ' || c == '"' || c == '\'' || c == '`' || c == '\\' || c == 0x7f)
      return flag + " " + json_text(nlohmann::json(v)) + " has a space, a quote or a control character";
  return "";
}

}  // namespace

ExitCode run_setup(const SetupArgs& a) {
  std::vector<std::pair<std::string, std::string>> values{{"--index-url", a.index_url}, {"--torch-index", a.torch_index},
                                                          {"--torch", a.torch}, {"--python", a.python}};
  for (const auto& w : a.with) values.push_back({"--with", w});
  for (char c : a.env_dir)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      std::fprintf(stderr, "dlready setup: ENV %s holds a control character: choose a plain folder name\n",
                   printable(a.env_dir).c_str());
      return ExitCode::usage;
    }
  for (const auto& [flag, v] : values)
    if (auto why = refuse_value(flag, v); !why.empty()) {
      std::fprintf(stderr, "dlready setup: %s\n", why.c_str());
      return ExitCode::usage;
    }
  PlanMachine m;
  std::vector<std::string> seen;
  if (auto err = machine_of(a, m, seen); !err.empty()) {
    std::fprintf(stderr, "dlready setup: %s\n", err.c_str());
    return ExitCode::usage;
  }
  m.python = a.python.empty() ? path_python_version() : a.python;
  if (m.python.empty()) {
    std::fprintf(stderr, "dlready setup: no python3 on PATH: give the environment's version with --python X.Y\n");
    return ExitCode::usage;
  }
  if (split(m.python, '.').size() != 2 || !parse_int(split(m.python, '.')[0]) || !parse_int(split(m.python, '.')[1])) {
    std::fprintf(stderr, "dlready setup: --python %s is not X.Y (3.11)\n", m.python.c_str());
    return ExitCode::usage;
  }
  m.platform = a.platform.empty() ? this_platform() : a.platform;
  m.torch = a.torch;
  m.index_url = a.index_url;
  if (!a.torch_index.empty()) m.torch_index = a.torch_index;
  else if (const char* v = std::getenv("DLREADY_TORCH_INDEX"); v && *v) m.torch_index = v;
  if (const char* v = std::getenv("PIP_EXTRA_INDEX_URL"); v && *v) m.extra_index_url = v;
  for (const char* var : {"PIP_INDEX_URL", "UV_INDEX_URL"})
    if (const char* v = std::getenv(var); m.index_url.empty() && v && *v) m.index_url = v;
  // What the indexes serve now (a day's cache); offline, the tables alone.
  if (!a.offline) m.index = read_torch_indexes(m, m.index_note);
  else m.index_note = "--offline";
  auto plan = plan_install(m);
  auto commands = commands_of(plan, a, m);
  if (a.json) {
    std::string text = json_text(plan_json(plan, m, a, seen, commands), 2) + "\n";
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    print_plan(plan, seen, a.dry_run ? commands : std::vector<std::string>{});
  }
  if (!plan.ok) return ExitCode::failed;
  if (a.dry_run || a.json) return ExitCode::ok;
  if (plans_another_machine(a)) {
    std::fprintf(stderr, "dlready setup: --driver/--gpu/--no-gpu plan for another machine: add --dry-run (an install "
                         "here follows this machine)\n");
    return ExitCode::usage;
  }
  InstallRequest req;
  req.env_dir = a.env_dir, req.python = m.python, req.with = a.with, req.tool = a.tool, req.verify = !a.no_verify;
  req.expect_gpu = !m.gpus.empty();
  req.conda_name = a.conda;
  std::fflush(stdout);
  return a.conda.empty() ? carry_out(plan, req) : carry_out_conda(plan, req);
}

}  // namespace dlready
