#include "platform/platform_record.hpp"

namespace dlready {

const std::vector<PlatformRecord>& platform_records() {
  static const std::vector<PlatformRecord> kRecords = {
      {Platform::linux, "linux", "Linux", kLinux,
       {RuleGroup::system, RuleGroup::driver, RuleGroup::devices, RuleGroup::allocator, RuleGroup::python, RuleGroup::software,
        RuleGroup::libraries, RuleGroup::services, RuleGroup::arm},
       VerdictKind::linux_cuda, true, SectionStyle::linux,
       {}, {"kernel-driver", "device-nodes", "driver-library", "driver-api"}, {},
       "sudo ", "", true, "linux", "Linux",
       "dlready setup ~/venvs/torch", true, {"linux-x86_64", "linux-aarch64"}, true, "",
       "or by hand: python3 -m venv ~/venvs/torch && . ~/venvs/torch/bin/activate", "", "/bin/python", "/bin/python",
       ". ", "/bin/activate", true, false, "export ", "=", "", "unset "},
      // The Linux rule groups read sysfs, the loader and /dev; Windows' facts come from its own probes.
      {Platform::windows, "windows", "Windows", kWindows, {RuleGroup::windows, RuleGroup::devices, RuleGroup::python, RuleGroup::allocator},
       VerdictKind::windows_cuda, false, SectionStyle::windows,
       {"kernel-driver", "device-nodes", "libtorch", "cpu-math"}, {"driver-library"}, {"driver-api"},
       "", " (in a terminal opened as administrator)", false, "win32", "Windows",
       "dlready setup --dry-run", false, {"win-amd64"}, false, "py launcher, conda, venvs",
       "or by hand: py -m venv $HOME\\venvs\\torch; $HOME\\venvs\\torch\\Scripts\\Activate.ps1",
       " (py launcher's registry, conda, venvs, VIRTUAL_ENV/CONDA_PREFIX)", "\\Scripts\\python.exe", "\\python.exe", "",
       "\\Scripts\\Activate.ps1", true, true, "$env:", " = \"", "\"", "Remove-Item Env:"},
      // No NVIDIA driver, no sysfs: the macOS source's facts and the environment's settings.
      {Platform::macos, "macos", "macOS", kMacos, {RuleGroup::macos, RuleGroup::python}, VerdictKind::macos_mps, false, SectionStyle::macos,
       {"gpu", "kernel-driver", "device-nodes", "driver-library", "driver-api", "cuda-libraries", "libtorch", "cpu-math"},
       {}, {}, "sudo ", "", false, "darwin", "Darwin",
       "dlready setup --dry-run", false, {"macos-arm64", "macos-x86_64"}, false, "Homebrew, python.org, conda, venvs",
       "or by hand: python3 -m venv ~/.venvs/torch && . ~/.venvs/torch/bin/activate", "", "/bin/python", "/bin/python",
       ". ", "/bin/activate", false, true, "export ", "=", "", "unset "},
  };
  return kRecords;
}

const PlatformRecord& platform_record(Platform p) {
  for (const auto& r : platform_records())
    if (r.platform == p) return r;
  return platform_records().front();
}

const PlatformRecord* platform_named(std::string_view name) {
  for (const auto& r : platform_records())
    if (r.name == name) return &r;
  return nullptr;
}

const PlatformRecord& platform_of(const Facts& f) {
  // Linux's source names the distribution ("ubuntu", "debian", ...) there, never "linux".
  const PlatformRecord* named = f.os.id ? platform_named(*f.os.id) : nullptr;
  return named ? *named : platform_record(Platform::linux);
}

const PlatformRecord* platform_of_setup_target(std::string_view target) {
  for (const auto& r : platform_records())
    for (auto t : r.setup_targets)
      if (t == target) return &r;
  return nullptr;
}

std::string setup_target_of(const Facts& f) {
  const PlatformRecord& p = platform_of(f);
  // A Mac under Rosetta still plans for Apple Silicon: the native arm64 is what a venv should run.
  if (p.platform == Platform::macos) return std::string(p.setup_targets[f.macos && f.macos->apple_silicon == false ? 1 : 0]);
  if (p.platform == Platform::linux) return std::string(p.setup_targets[f.os.arch.value_or("") == "aarch64" ? 1 : 0]);
  return std::string(p.setup_targets.front());
}

std::string as_admin(const PlatformRecord& p, const std::string& command) {
  return std::string(p.admin_prefix) + command + std::string(p.admin_suffix);
}

std::string set_variable(const PlatformRecord& p, const std::string& name, const std::string& value) {
  return std::string(p.set_variable_before) + name + std::string(p.set_variable_between) + value +
         std::string(p.set_variable_after);
}

std::string unset_variable(const PlatformRecord& p, const std::string& name) {
  return std::string(p.unset_variable_before) + name;
}

}  // namespace dlready
