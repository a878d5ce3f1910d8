// What a plan becomes for the user, for the platform it is for (linux-*, macos-*, win-amd64): the
// commands that make the environment, install the build and prove it as the tutorials do, each in
// that platform's shell (POSIX sh, PowerShell), the plan as text and as JSON.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "planner/install_plan.hpp"

namespace dlready {

// The commands that make ENV with the machine's Python, install the plan into it and prove it (CUDA
// or, on a Mac, MPS); none when no build fits.
std::vector<std::string> install_commands(const InstallPlan& p, const PlanMachine& m, const std::string& env_dir,
                                          const std::vector<std::string>& with);

// `setup --conda NAME`: the environment.yml the install writes (conda's Python X.Y, pip inside it
// from the plan's index: PyTorch publishes no conda packages after 2.5).
std::string environment_yml(const InstallPlan& p, const std::string& name, const std::string& python,
                            const std::vector<std::string>& with);
// The commands that write it, make the conda environment from it and prove it, in the platform's
// shell (what the install runs; mamba does the same where it is on PATH); none when no build fits.
std::vector<std::string> conda_commands(const InstallPlan& p, const PlanMachine& m, const std::string& name,
                                        const std::vector<std::string>& with);

// The plan as `dlready setup` prints it: what was seen, the build and why, the commands (named by
// their shell where it is not POSIX sh). `another_machine`: the flags described the machine.
std::string plan_text(const InstallPlan& p, const PlanMachine& m, const std::vector<std::string>& seen,
                      const std::vector<std::string>& commands, bool another_machine);

// The plan as `dlready setup --json` writes it (schema dlready.setup-plan/1): the machine and what
// was seen of it, the build, why, and the commands for `environment`.
nlohmann::json install_plan_json(const InstallPlan& p, const PlanMachine& m, const std::string& environment,
                                 const std::vector<std::string>& with, const std::vector<std::string>& seen,
                                 const std::vector<std::string>& commands);

// `setup --candidates`: every build graded for the machine (planner/install_plan.hpp's
// plan_candidates), the chosen one marked; without `all`, only the ones that run here.
std::string candidates_text(const std::vector<Candidate>& candidates,
                            const std::vector<std::string>& seen, bool all);
// `setup --why`: each build asked for, its checks and its grade (planner's explain_build).
std::string build_why_text(const std::vector<BuildWhy>& builds, const std::string& asked,
                           const std::vector<std::string>& seen, const InstallPlan& plan);
nlohmann::json build_why_json(const std::vector<BuildWhy>& builds, const PlanMachine& m,
                              const std::vector<std::string>& seen);
nlohmann::json candidates_json(const std::vector<Candidate>& candidates, const PlanMachine& m,
                               const std::vector<std::string>& seen);

}  // namespace dlready
