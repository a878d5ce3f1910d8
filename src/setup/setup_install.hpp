// `dlready setup` without --dry-run: the plan carried out in a virtual environment — created with
// uv or `python -m venv`, the planned torch installed from the planned index, then proven in that
// environment's own Python the way the tutorials check an install. Never the system Python: an
// existing folder must be a virtual environment. A failed install removes an environment this run
// created and leaves an existing one as pip found it (a resolve-only pass runs first).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/exit_code.hpp"
#include "planner/install_plan.hpp"
#include "setup/setup_plan.hpp"

namespace dlready {

struct InstallRequest {
  std::string env_dir;
  std::string python;             // X.Y
  std::vector<std::string> with;  // torchvision, ...
  std::string tool = "auto";      // auto | uv | pip
  bool verify = true;             // run the proof after installing
  bool expect_gpu = false;        // the plan is a CUDA build for GPUs seen here: CUDA must be usable
  std::string conda_name;         // --conda NAME: a conda environment from environment.yml instead
};

// Carries out `plan` (ok) for `req`, printing each step; the command's exit status.
ExitCode carry_out(const InstallPlan& plan, const InstallRequest& req);
// Whether the folder can take the install (else why not): a virtual environment of that Python, or a
// new or empty folder — never a Python installation's own prefix. The dry run asks it too.
[[nodiscard]] Status check_target(const std::string& dir, const std::string& python);

// --conda NAME: writes ./environment.yml for the plan (pip inside conda: PyTorch publishes no conda
// packages after 2.5), then `conda env update` (mamba's when there) and the proof through
// `conda run`; without conda or mamba on PATH, the file and how to use it.
ExitCode carry_out_conda(const InstallPlan& plan, const InstallRequest& req);

// setup's installer on the build that installs: check_target, then carry_out (carry_out_conda with --conda).
[[nodiscard]] Installer venv_installer();

// The torch version a virtual environment holds, from its dist-info names ("" when none).
[[nodiscard]] std::optional<std::string> installed_torch(const std::string& env_dir);

// Does an installed version ("2.11.0+cu130") satisfy the plan (release and variant)?
bool satisfies(const std::string& installed, const InstallPlan& plan);

}  // namespace dlready
