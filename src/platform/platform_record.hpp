// A platform, once: every place that differs by platform (which source gave the facts, which rule
// groups and verdict apply, which report sections exist, where a command runs, how a fix is worded)
// looks its platform's record up here, and no code elsewhere compares a platform's name. Adding a
// platform is its folder of sources (probe/<platform>/, cli/front_end_<platform>.cpp) and one row
// of this table (docs/architecture.md lists the files).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "facts/facts.hpp"
#include "platform/platform.hpp"

namespace dlready {

// The doctor's groups of rules; diagnose/ runs a group's rules (diagnose/diagnose.cpp).
enum class RuleGroup {
  system,     // the kernel, the processors, containers, WSL (rules_system)
  driver,     // the NVIDIA driver through sysfs, /dev and its libraries (rules_driver)
  devices,    // the GPUs the driver and NVML answer for, CUDA_VISIBLE_DEVICES (rules_devices)
  allocator,  // PYTORCH_CUDA_ALLOC_CONF (alloc_conf)
  python,     // the Python environments' PyTorch, the same on every platform (rules_python)
  software,   // dlready's module, the CUDA toolkit, LibTorch, BLAS (rules_software)
  libraries,  // the loader's CUDA libraries (rules_libraries)
  services,   // Secure Boot, CDI, NCCL (rules_services)
  arm,        // Jetson and Grace (rules_arm)
  windows,    // Windows' driver, DLLs and Python (rules_windows)
  macos,      // MPS, Rosetta, macOS's versions (rules_macos)
};
// How the findings become the verdict: CUDA through Linux's driver, CUDA through Windows', MPS.
enum class VerdictKind { linux_cuda, windows_cuda, macos_mps };
// The report's fact sections as each platform's source fills them (report/section_facts.cpp).
enum class SectionStyle { linux, windows, macos };

struct PlatformRecord {
  Platform platform;
  // "linux", "windows", "macos": CMake's DLREADY_PLATFORM, FactSource::platform, a capture
  // manifest's platform, the command table's word; Windows' and macOS's sources set it as os.id.
  std::string_view name;
  std::string_view title;  // "Linux", "Windows", "macOS"
  unsigned bit;            // PlatformBit (platform/platform.hpp)
  std::vector<RuleGroup> rule_groups;  // in the order their findings are listed
  VerdictKind verdict;
  bool recommends_installs;  // the report's "Recommended install" (the tables' builds for this machine)
  SectionStyle sections;
  // Report sections with nothing to say here: always; when no GPU is in evidence; when the driver
  // probe did not run.
  std::vector<std::string_view> not_applicable, not_applicable_without_gpu, not_applicable_without_driver_probe;
  // A command that needs an administrator: "sudo " before it, or where to run it after it.
  std::string_view admin_prefix, admin_suffix;
  bool expandable_segments;  // PyTorch's CUDA allocator has expandable_segments here (not on Windows)
  // What Python's requirement markers (PEP 508) say here: sys_platform, platform_system.
  std::string_view sys_platform, platform_system;
  // The Python environments in the user's words: setup's command for a working one (and whether
  // that build's setup installs, or plans and prints the commands), the same by hand, where the
  // doctor looks for Pythons (said when it found none, "" where the list says it), an environment's
  // interpreter under its prefix (a venv's, another's), a venv entered (before + prefix + after).
  std::string_view setup_command;
  bool setup_installs;
  // setup's words for this platform's machines (--platform, the plan's `platform`), and where setup
  // takes the environment's Python from when --python does not say: python3 on PATH (the one that
  // makes the venv), else the doctor's environments (the active one first), named by setup_python_places.
  std::vector<std::string_view> setup_targets;
  bool setup_python_on_path;
  std::string_view setup_python_places;
  std::string_view new_environment, python_places, venv_python, env_python, activate_before, activate_after;
  bool cuda_wheels;  // PyTorch publishes CUDA builds here: pip's index is chosen for the driver and GPUs
  // PyPI's own torch wheel is a CPU build here (the CUDA ones carry +cuXYZ and come from PyTorch's index).
  bool pypi_torch_is_cpu_build;
  // An environment variable set and unset in the platform's shell (POSIX sh, PowerShell):
  // set_variable_before + NAME + set_variable_between + value + set_variable_after.
  std::string_view set_variable_before, set_variable_between, set_variable_after, unset_variable_before;
};

// Every platform's record, Linux's first.
[[nodiscard]] const std::vector<PlatformRecord>& platform_records();
[[nodiscard]] const PlatformRecord& platform_record(Platform p);
// The platform whose source gave these facts (Linux's names the distribution in os.id).
[[nodiscard]] const PlatformRecord& platform_of(const Facts& f);
// The record of a platform's name ("linux"...), nullptr for another word.
[[nodiscard]] const PlatformRecord* platform_named(std::string_view name);
// The record whose setup_targets hold `target` ("win-amd64"), nullptr for another word.
[[nodiscard]] const PlatformRecord* platform_of_setup_target(std::string_view target);
// The setup target of the machine these facts describe (linux-aarch64, macos-x86_64, win-amd64).
[[nodiscard]] std::string setup_target_of(const Facts& f);
// `command` as an administrator runs it there ("sudo nvidia-smi -pm 1").
[[nodiscard]] std::string as_admin(const PlatformRecord& p, const std::string& command);
// The shell's command that sets (export X=v; $env:X = "v") or removes a variable there.
[[nodiscard]] std::string set_variable(const PlatformRecord& p, const std::string& name, const std::string& value);
[[nodiscard]] std::string unset_variable(const PlatformRecord& p, const std::string& name);

}  // namespace dlready
