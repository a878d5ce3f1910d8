// `dlready setup`'s plan on every platform: which PyTorch build fits a machine (this one, read as
// the doctor reads it — a capture of another platform's too — or another described by flags), from
// which index, and why (planner/install_plan.hpp decides; this gathers what it decides from), and
// the commands that install it and prove it in the shell of the platform it is for. Installing is
// setup_install.hpp (the Linux build's).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/exit_code.hpp"
#include "planner/install_plan.hpp"

namespace dlready {

struct SetupRequest {
  std::string env_dir = ".venv";
  std::string python;       // "" = this machine's (the platform's record says where it is looked for)
  std::string torch;        // "" = the newest that fits
  std::vector<std::string> with;  // torchvision, torchaudio
  std::string index_url;    // "" = PIP_INDEX_URL / UV_INDEX_URL, else none
  std::string torch_index;  // "" = DLREADY_TORCH_INDEX, else https://download.pytorch.org/whl/
  std::string tool = "auto";
  std::string conda;        // --conda NAME: a conda environment instead of a venv
  bool dry_run = false, json = false, no_verify = false;
  bool offline = false;  // plan from the tables alone (setup/setup_index.hpp)
  bool candidates = false;  // --candidates: every build graded for the machine instead of one plan
  bool all = false;         // --all: the incompatible and unavailable ones too
  std::string why;          // --why SPEC: one build (torch==2.12.1+cu130, 2.12+cu130, 2.12) checked one check at a time
  // Another machine: any of these plans for it instead of this one.
  std::string driver;
  std::vector<std::string> gpus;
  bool no_gpu = false;
  std::string platform;     // a setup target (linux-x86_64, linux-aarch64, win-amd64, macos-arm64, macos-x86_64); "" = this machine's
  std::string macos;        // a Mac's macOS version (--platform macos-arm64 / macos-x86_64)
  std::string jetpack;      // a Jetson's JetPack (another machine; linux-aarch64)
  std::string root = "/";   // test seam, as doctor --root
  bool load_root_drivers = false;  // as doctor --load-root-drivers
};

struct SetupPlan {
  PlanMachine machine;
  std::vector<std::string> seen;  // what was read of the machine, one line each
  InstallPlan plan;
  std::vector<std::string> commands;  // in the shell of the platform the plan is for
};

// The machine to plan for from the request (its flags, else this machine as the doctor sees it),
// the environment's Python, the indexes (read once a day unless offline), the plan and its
// commands; fails with why it could not be (a usage error).
[[nodiscard]] Status plan_setup(const SetupRequest& request, SetupPlan& out);
bool plans_another_machine(const SetupRequest& request);
nlohmann::json plan_json(const SetupPlan& plan, const SetupRequest& request);

// The setup target of the machine this build runs on ("linux-x86_64", "win-amd64", ...), its
// platform's twin (this_target_posix.cpp, this_target_windows.cpp).
std::string this_build_target();

// What carries a plan out on the builds that install (the Linux build's venv_installer(),
// setup_install.hpp): the environment folder's check, which the dry run asks too, and the install.
// Empty where setup only plans and prints the commands (the platform record's setup_installs).
struct Installer {
  Status (*check)(const SetupRequest& request, const PlanMachine& machine) = nullptr;
  ExitCode (*install)(const SetupPlan& plan, const SetupRequest& request) = nullptr;
};
// `dlready setup` on every platform: refuses what the build cannot do, prints the plan (text or
// JSON), then installs it through `installer` unless it is a dry run.
ExitCode run_setup(const SetupRequest& request, const Installer& installer);

}  // namespace dlready
