// `dlready setup --dry-run`: which PyTorch build fits a machine (this one, read as the doctor reads
// it, or another described by flags), from which index, and why; the commands that install it into
// a virtual environment and prove it as the tutorials do.
#pragma once
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "core/exit_code.hpp"

namespace dlready {

struct SetupArgs {
  std::string env_dir = ".venv";
  std::string python;       // "" = this machine's python3
  std::string torch;        // "" = the newest that fits
  std::vector<std::string> with;  // torchvision, torchaudio
  std::string index_url;    // "" = PIP_INDEX_URL / UV_INDEX_URL, else none
  std::string torch_index;  // "" = DLREADY_TORCH_INDEX, else https://download.pytorch.org/whl/
  std::string tool = "auto";
  std::string conda;        // --conda NAME: a conda environment instead of a venv
  bool dry_run = false, json = false, no_verify = false;
  bool offline = false;  // plan from the tables alone (cli/setup_index.hpp)
  // Another machine: any of these plans for it instead of this one.
  std::string driver;
  std::vector<std::string> gpus;
  bool no_gpu = false;
  std::string platform;     // "" = this machine's
  std::string root = "/";   // test seam, as doctor --root
};

void add_setup_command(CLI::App& app, SetupArgs& args);
ExitCode run_setup(const SetupArgs& args);

}  // namespace dlready
