// `dlready setup`'s plan: which PyTorch build fits a machine (this one, read as the doctor reads
// it, or another described by flags), from which index, and why (diagnose/install_plan.hpp decides;
// this gathers what it decides from), its JSON, and the commands that install it into a virtual
// environment and prove it as the tutorials do. Installing is setup_install.hpp.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "diagnose/install_plan.hpp"

namespace dlready {

struct SetupRequest {
  std::string env_dir = ".venv";
  std::string python;       // "" = this machine's python3
  std::string torch;        // "" = the newest that fits
  std::vector<std::string> with;  // torchvision, torchaudio
  std::string index_url;    // "" = PIP_INDEX_URL / UV_INDEX_URL, else none
  std::string torch_index;  // "" = DLREADY_TORCH_INDEX, else https://download.pytorch.org/whl/
  std::string tool = "auto";
  std::string conda;        // --conda NAME: a conda environment instead of a venv
  bool dry_run = false, json = false, no_verify = false;
  bool offline = false;  // plan from the tables alone (setup/setup_index.hpp)
  // Another machine: any of these plans for it instead of this one.
  std::string driver;
  std::vector<std::string> gpus;
  bool no_gpu = false;
  std::string platform;     // "" = this machine's
  std::string macos;        // a Mac's macOS version (--platform macos-arm64 / macos-x86_64)
  std::string jetpack;      // a Jetson's JetPack (another machine; linux-aarch64)
  std::string root = "/";   // test seam, as doctor --root
  bool load_root_drivers = false;  // as doctor --load-root-drivers
};

// The machine to plan for from the request (its flags, else this machine as the doctor sees it),
// the environment's Python, the indexes (read once a day unless offline); `seen` says what was
// read; fails with why it could not be (a usage error).
[[nodiscard]] Status plan_machine(const SetupRequest& request, PlanMachine& m, std::vector<std::string>& seen);
bool plans_another_machine(const SetupRequest& request);
nlohmann::json plan_json(const InstallPlan& p, const PlanMachine& m, const SetupRequest& request,
                         const std::vector<std::string>& seen, const std::vector<std::string>& commands);
std::vector<std::string> commands_of(const InstallPlan& p, const SetupRequest& request, const PlanMachine& m);

}  // namespace dlready
