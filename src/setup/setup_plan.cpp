#include "setup/setup_plan.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

#include "os/process_runner.hpp"
#include "core/redact.hpp"
#include "core/text.hpp"
#include "diagnose/rules.hpp"
#include "doctor/examine.hpp"
#include "setup/setup_index.hpp"

namespace dlready {
namespace {



// The Python `python3 -m venv` would use: python3 on PATH, its version from the file the link ends
// at (python3 -> python3.11). Runs nothing.
std::string path_python_version() {
  const char* path = std::getenv("PATH");
  for (const auto& python3 : all_on_path("python3", path ? path : "")) {  // a shim (pyenv's) says nothing: the next
    char real[PATH_MAX];
    if (!::realpath(python3.c_str(), real)) continue;
    std::string name = real;
    name = name.substr(name.rfind('/') + 1);
    if (name.rfind("python", 0) == 0 && split(name.substr(6), '.').size() == 2) return name.substr(6);
  }
  return "";
}

std::string this_platform() {
  utsname u{};
  ::uname(&u);
  return std::string("linux-") + (std::string(u.machine) == "aarch64" ? "aarch64" : "x86_64");
}

}  // namespace

bool plans_another_machine(const SetupRequest& a) {
  return !a.driver.empty() || !a.gpus.empty() || a.no_gpu || starts_with(a.platform, "macos-") || !a.jetpack.empty();
}

namespace {

// A Mac from another machine: its macOS and Python as flags; CUDA's flags do not apply there.
Status mac_from_flags(const SetupRequest& a, PlanMachine& m, std::vector<std::string>& seen) {
  if (!a.gpus.empty() || !a.driver.empty()) return Status::failure("--gpu and --driver describe NVIDIA GPUs: CUDA does not exist on macOS");
  if (a.macos.empty()) return Status::failure("--platform " + a.platform + " needs the Mac's macOS version: --macos 14.5");
  if (Status why = check_macos_version(a.macos); !why.ok()) return why;
  if (a.python.empty()) return Status::failure("--platform " + a.platform + " needs the Mac's Python version: --python 3.12");
  m.macos = a.macos;
  seen.push_back("the Mac given: " + a.platform.substr(6) + ", macOS " + a.macos + ", Python " + a.python);
  return {};
}

// The machine to plan for: the flags', or this one as the doctor sees it; fails with why it cannot be read.
Status machine_of(const SetupRequest& a, PlanMachine& m, std::vector<std::string>& seen) {
  if (starts_with(a.platform, "macos-")) return mac_from_flags(a, m, seen);
  if (!a.macos.empty()) return Status::failure("--macos goes with --platform macos-arm64 or macos-x86_64");
  if (!a.jetpack.empty()) {
    if (!a.gpus.empty() || !a.driver.empty() || a.no_gpu) return Status::failure("--jetpack describes a Jetson: without --gpu, --driver or --no-gpu");
    if (!a.platform.empty() && a.platform != "linux-aarch64") return Status::failure("--jetpack goes with --platform linux-aarch64");
    auto parts = split(a.jetpack, '.');
    if (parts.empty() || parts.size() > 3 || !parse_int(parts[0]) || a.jetpack.size() > 8)
      return Status::failure("--jetpack " + printable(a.jetpack, 40) + " is not a JetPack version (6.1)");
    m.jetpack = a.jetpack;
    seen.push_back("the Jetson given: JetPack " + a.jetpack);
    return {};
  }
  if (plans_another_machine(a)) return machine_from_flags(a.no_gpu, a.gpus, a.driver, m, seen);
  GatherOptions opt;
  opt.root = a.root;
  opt.load_root_drivers = a.load_root_drivers;
  opt.env = process_environment();
  auto e = examine(opt);
  if (!e.error.empty()) return Status::failure(e.error);
  return machine_from_facts(e.facts, m, seen);
}

}  // namespace

nlohmann::json plan_json(const InstallPlan& p, const PlanMachine& m, const SetupRequest& a,
                         const std::vector<std::string>& seen, const std::vector<std::string>& commands) {
  return install_plan_json(p, m, a.env_dir, a.with, seen, commands);
}

// What installs the plan into ENV and proves it, as the tutorials do: a fresh environment, the
// install from the plan's index, then version, CUDA, cuDNN and a matmul checked against the CPU.
std::vector<std::string> commands_of(const InstallPlan& p, const SetupRequest& a, const PlanMachine& m) {
  if (!p.ok) return {};
  if (starts_with(m.platform, "macos-")) return mac_install_commands(p, a.env_dir, a.with, m.python);
  // Every argument quoted for the shell: a user copies these lines, and ENV or --with may hold
  // anything a shell would act on.
  std::vector<std::string> install = {a.env_dir + "/bin/python", "-m", "pip", "install", p.requirement};
  install.insert(install.end(), a.with.begin(), a.with.end());
  // Printed for a user to copy: an index's user:password stays where the user keeps it.
  install.insert(install.end(), {"--index-url", without_credentials(p.index_url)});
  std::string py = shell_quote(a.env_dir + "/bin/python");
  return {shell_join({"python" + m.python, "-m", "venv", a.env_dir}), shell_join(install),
          py + " -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available(), "
               "torch.backends.cudnn.version()); d = \"cuda\" if torch.cuda.is_available() else \"cpu\"; "
               "a = torch.randn(2000, 2000); print((a.to(d) @ a.to(d)).cpu().allclose(a @ a, rtol=1e-3, atol=1e-2))'",
          "VIRTUAL_ENV=" + shell_quote(a.env_dir) + " dlready doctor"};
}

Status plan_machine(const SetupRequest& a, PlanMachine& m, std::vector<std::string>& seen) {
  std::vector<std::pair<std::string, std::string>> values{{"--index-url", a.index_url}, {"--torch-index", a.torch_index},
                                                          {"--torch", a.torch}, {"--python", a.python}};
  for (const auto& w : a.with) values.push_back({"--with", w});
  for (char c : a.env_dir)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return Status::failure("ENV " + printable(a.env_dir, 200) + " holds a control character: choose a plain folder name");
    }
  for (const auto& [flag, v] : values)
    if (Status why = check_flag_value(flag, v); !why.ok()) return why;
  if (Status err = machine_of(a, m, seen); !err.ok()) return err;
  m.python = a.python.empty() ? path_python_version() : a.python;
  if (m.python.empty()) return Status::failure("no python3 on PATH: give the environment's version with --python X.Y");
  if (split(m.python, '.').size() != 2 || !parse_int(split(m.python, '.')[0]) || !parse_int(split(m.python, '.')[1]))
    return Status::failure("--python '" + printable(m.python, 80) + "' is not X.Y (3.11)");
  m.platform = !a.platform.empty() ? a.platform : !m.jetpack.empty() ? "linux-aarch64" : this_platform();
  m.torch = a.torch;
  m.index_url = a.index_url;
  if (!a.torch_index.empty()) m.torch_index = a.torch_index;
  else if (const char* v = std::getenv("DLREADY_TORCH_INDEX"); v && *v) m.torch_index = v;
  if (const char* v = std::getenv("PIP_EXTRA_INDEX_URL"); v && *v) m.extra_index_url = v;
  for (const char* var : {"PIP_INDEX_URL", "UV_INDEX_URL"})
    if (const char* v = std::getenv(var); m.index_url.empty() && v && *v) m.index_url = v;
  // What the indexes serve now (a day's cache); offline, the tables alone. A Mac's plan comes from
  // the macOS wheel table (diagnose/mac_wheels.hpp).
  if (starts_with(m.platform, "macos-")) m.index_note = "a Mac's plan comes from dlready's macOS wheel table";
  else if (!m.jetpack.empty() && !starts_with(m.jetpack, "7")) m.index_note = "a Jetson's plan is its JetPack's index";
  else if (!a.offline) m.index = read_torch_indexes(m, m.index_note);
  else m.index_note = "--offline";
  return {};
}

}  // namespace dlready
