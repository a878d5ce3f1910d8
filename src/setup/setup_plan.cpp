#include "setup/setup_plan.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "core/json_text.hpp"
#include "core/text.hpp"
#include "doctor/examine.hpp"
#include "platform/platform_record.hpp"
#include "setup/plan_commands.hpp"
#include "setup/plan_inputs.hpp"
#include "setup/setup_index.hpp"

namespace dlready {
namespace {

// The Python `python3 -m venv` would use: python3 on PATH, its version from the file the link ends
// at (python3 -> python3.11). Runs nothing; a shim (pyenv's) says nothing: the next.
std::optional<std::string> path_python_version() {
  const char* path = std::getenv("PATH");
  for (const auto& dir : split(path ? path : "", ':')) {
    if (dir.empty()) continue;
    std::error_code ec;
    auto real = std::filesystem::canonical(std::filesystem::path(dir) / "python3", ec);
    if (ec || !std::filesystem::is_regular_file(real, ec)) continue;
    std::string name = real.filename().string();
    if (name.rfind("python", 0) == 0 && split(name.substr(6), '.').size() == 2) return name.substr(6);
  }
  return std::nullopt;
}

// The environments' Python as the doctor found them: the active one's, else the first with a version.
std::string found_python_version(const Facts& f) {
  std::string python;
  for (const auto& env : f.python.envs)
    if (env.python_version && (python.empty() || env.active)) python = *env.python_version;
  return python;
}

// A Mac from another machine: its macOS and Python as flags; CUDA's flags do not apply there.
Status mac_from_flags(const SetupRequest& a, PlanMachine& m, std::vector<std::string>& seen) {
  if (!a.gpus.empty() || !a.driver.empty()) return Status::failure("--gpu and --driver describe NVIDIA GPUs: CUDA does not exist on macOS");
  if (a.macos.empty()) return Status::failure("--platform " + m.platform + " needs the Mac's macOS version: --macos 14.5");
  if (Status why = check_macos_version(a.macos); !why.ok()) return why;
  if (a.python.empty()) return Status::failure("--platform " + m.platform + " needs the Mac's Python version: --python 3.12");
  m.macos = a.macos;
  seen.push_back("the Mac given: " + m.platform.substr(6) + ", macOS " + a.macos + ", Python " + a.python);
  return {};
}

Status jetson_from_flags(const SetupRequest& a, PlanMachine& m, std::vector<std::string>& seen) {
  if (!a.gpus.empty() || !a.driver.empty() || a.no_gpu) return Status::failure("--jetpack describes a Jetson: without --gpu, --driver or --no-gpu");
  if (m.platform != "linux-aarch64") return Status::failure("--jetpack goes with --platform linux-aarch64");
  auto parts = split(a.jetpack, '.');
  if (parts.empty() || parts.size() > 3 || !parse_int(parts[0]) || a.jetpack.size() > 8)
    return Status::failure("--jetpack " + printable(a.jetpack, 40) + " is not a JetPack version (6.1)");
  m.jetpack = a.jetpack;
  seen.push_back("the Jetson given: JetPack " + a.jetpack);
  return {};
}

// This machine as the doctor sees it (or the machine a capture under --root recorded, whatever its
// platform): its target, driver and GPUs, or a Mac's macOS; `python` its environments' Python.
Status this_machine(const SetupRequest& a, PlanMachine& m, std::vector<std::string>& seen, std::string& python) {
  GatherOptions opt;
  opt.root = a.root;
  opt.load_root_drivers = a.load_root_drivers;
  opt.env = process_environment();
  auto e = examine(opt);
  if (!e.error.empty()) return Status::failure(e.error);
  m.platform = setup_target_of(e.facts);
  python = found_python_version(e.facts);
  if (!e.facts.macos) return machine_from_facts(e.facts, m, seen);
  m.macos = effective_macos_version(*e.facts.macos).value_or("");
  seen.push_back("this Mac: " + m.platform.substr(6) + ", macOS " + (m.macos.empty() ? "unknown" : m.macos) +
                 (e.facts.macos->translated == true ? " (this shell runs under Rosetta: the plan is for the native arm64)" : ""));
  return {};
}

// The machine to plan for: the flags', or this one as the doctor sees it; fails with why it cannot
// be read. `python` is the machine's own Python where the platform's record takes it from there.
Status machine_of(const SetupRequest& a, PlanMachine& m, std::vector<std::string>& seen, std::string& python) {
  if (!plans_another_machine(a)) {
    Status read = this_machine(a, m, seen, python);
    if (!a.platform.empty()) m.platform = a.platform;  // this machine's GPUs, another processor's wheels
    return read;
  }
  // --macos alone on a Mac: another Mac of this kind.
  m.platform = !a.platform.empty() ? a.platform : !a.jetpack.empty() ? "linux-aarch64" : this_build_target();
  if (starts_with(m.platform, "macos-")) return mac_from_flags(a, m, seen);
  if (!a.macos.empty()) return Status::failure("--macos goes with --platform macos-arm64 or macos-x86_64");
  if (!a.jetpack.empty()) return jetson_from_flags(a, m, seen);
  return machine_from_flags(a.no_gpu, a.gpus, a.driver, m, seen);
}

// The flags' values, each printed in the commands: checked before anything is read.
Status check_request(const SetupRequest& a) {
  for (char c : a.env_dir)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      return Status::failure("ENV " + printable(a.env_dir, 200) + " holds a control character: choose a plain folder name");
  std::vector<std::pair<std::string, std::string>> values{
      {"--index-url", a.index_url}, {"--torch-index", a.torch_index}, {"--torch", a.torch}, {"--python", a.python}};
  for (const auto& w : a.with) values.push_back({"--with", w});
  for (const auto& [flag, v] : values)
    if (Status why = check_flag_value(flag, v); !why.ok()) return why;
  if (!a.conda.empty() && a.conda.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
                              std::string::npos)
    return Status::failure("--conda " + printable(a.conda, 60) + ": a conda environment name is letters, digits, '.', '_' and '-'");
  if (!a.platform.empty() && !platform_of_setup_target(a.platform))
    return Status::failure("--platform " + printable(a.platform, 40) +
                           " is not a platform setup plans for (linux-x86_64, linux-aarch64, win-amd64, macos-arm64, macos-x86_64)");
  return {};
}

// The environment's Python: --python, else where the platform's record says it is found.
Status choose_python(const SetupRequest& a, const std::string& found, PlanMachine& m) {
  const PlatformRecord* target = platform_of_setup_target(m.platform);
  const bool on_path = target && target->setup_python_on_path;
  m.python = !a.python.empty() ? a.python : on_path ? path_python_version().value_or("") : found;
  if (m.python.empty() && on_path) return Status::failure("no python3 on PATH: give the environment's version with --python X.Y");
  std::string places = target ? std::string(target->setup_python_places) : "";
  return check_plan_flags(m.python, a.with, places.empty() ? "python3 on PATH" : places, a.index_url);
}

// Where the plan's wheels are looked up: the flags, then pip's and uv's variables, then what the
// indexes serve now (a day's cache) unless offline; a Mac's plan comes from the macOS wheel table.
void choose_indexes(const SetupRequest& a, PlanMachine& m) {
  m.torch = a.torch;
  m.index_url = a.index_url;
  if (!a.torch_index.empty()) m.torch_index = a.torch_index;
  else if (const char* v = std::getenv("DLREADY_TORCH_INDEX"); v && *v) m.torch_index = v;
  if (const char* v = std::getenv("PIP_EXTRA_INDEX_URL"); v && *v) m.extra_index_url = v;
  for (const char* var : {"PIP_INDEX_URL", "UV_INDEX_URL"})
    if (const char* v = std::getenv(var); m.index_url.empty() && v && *v) m.index_url = v;
  if (starts_with(m.platform, "macos-")) m.index_note = "a Mac's plan comes from dlready's macOS wheel table";
  else if (!m.jetpack.empty() && !starts_with(m.jetpack, "7")) m.index_note = "a Jetson's plan is its JetPack's index";
  else if (!a.offline) m.index = read_torch_indexes(m, m.index_note);
  else m.index_note = "--offline";
}

}  // namespace

bool plans_another_machine(const SetupRequest& a) {
  // Another platform's machine (a Mac, Windows) is never this one; another processor's may be.
  return !a.driver.empty() || !a.gpus.empty() || a.no_gpu || !a.jetpack.empty() || !a.macos.empty() ||
         (!a.platform.empty() && platform_of_setup_target(a.platform) != platform_of_setup_target(this_build_target()));
}

Status plan_setup(const SetupRequest& a, SetupPlan& out) {
  if (Status why = check_request(a); !why.ok()) return why;
  std::string found_python;
  if (Status why = machine_of(a, out.machine, out.seen, found_python); !why.ok()) return why;
  if (Status why = choose_python(a, found_python, out.machine); !why.ok()) return why;
  choose_indexes(a, out.machine);
  out.plan = plan_install(out.machine);
  out.commands = a.conda.empty() ? install_commands(out.plan, out.machine, a.env_dir, a.with)
                                 : conda_commands(out.plan, out.machine, a.conda, a.with);
  return {};
}

nlohmann::json plan_json(const SetupPlan& s, const SetupRequest& a) {
  return install_plan_json(s.plan, s.machine, a.env_dir, a.with, s.seen, s.commands);
}

}  // namespace dlready
