#include "setup/plan_commands.hpp"

#include "core/redact.hpp"
#include "core/text.hpp"
#include "report/render.hpp"

namespace dlready {
namespace {

std::string sm(std::pair<int, int> cc) { return "sm_" + std::to_string(cc.first) + std::to_string(cc.second); }

// The proof as the tutorials give it: the version and the backend (CUDA with cuDNN, or a Mac's MPS),
// then a matmul on the device checked against the CPU. Its strings in `quote`, the one the shell's
// quoting of the whole leaves free (POSIX sh: '...' around it; PowerShell: "..." around it, as
// Windows PowerShell 5.1 drops double quotes from a native program's arguments).
std::string proof(bool mps, char quote) {
  const std::string q(1, quote);
  const std::string device = mps ? "mps" : "cuda";
  return std::string("import torch; print(torch.__version__, ") +
         (mps ? "torch.backends.mps.is_built(), torch.backends.mps.is_available()); d = " + q + device + q +
                    " if torch.backends.mps.is_available() else " + q + "cpu" + q + "; "
              : "torch.version.cuda, torch.cuda.is_available(), torch.backends.cudnn.version()); d = " + q + device + q +
                    " if torch.cuda.is_available() else " + q + "cpu" + q + "; ") +
         "a = torch.randn(2000, 2000); print((a.to(d) @ a.to(d)).cpu().allclose(a @ a, rtol=1e-3, atol=1e-2))";
}

// A PowerShell string literal: single quotes take everything as written ('' is one quote).
std::string powershell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::vector<std::string> powershell_commands(const InstallPlan& p, const PlanMachine& m, const std::string& env_dir,
                                             const std::vector<std::string>& with) {
  const std::string py = powershell_quote(env_dir + "\\Scripts\\python.exe");
  std::string install = "& " + py + " -m pip install " + powershell_quote(p.requirement);
  for (const auto& w : with) install += " " + powershell_quote(w);
  install += " --index-url " + powershell_quote(without_credentials(p.index_url));
  return {"py -" + m.python + " -m venv " + powershell_quote(env_dir), install,
          "& " + py + " -c \"" + proof(false, '\'') + "\"",
          "$env:VIRTUAL_ENV = " + powershell_quote(env_dir) + "; dlready.exe doctor"};
}

// Every argument quoted for the shell: a user copies these lines, and ENV or --with may hold
// anything a shell would act on.
std::vector<std::string> posix_commands(const InstallPlan& p, const PlanMachine& m, const std::string& env_dir,
                                        const std::vector<std::string>& with) {
  std::vector<std::string> install = {env_dir + "/bin/python", "-m", "pip", "install", p.requirement};
  install.insert(install.end(), with.begin(), with.end());
  // Printed for a user to copy: an index's user:password stays where the user keeps it.
  install.insert(install.end(), {"--index-url", without_credentials(p.index_url)});
  std::string py = shell_quote(env_dir + "/bin/python");
  return {shell_join({"python" + m.python, "-m", "venv", env_dir}), shell_join(install),
          py + " -c '" + proof(starts_with(m.platform, "macos-"), '"') + "'",
          "VIRTUAL_ENV=" + shell_quote(env_dir) + " dlready doctor"};
}

}  // namespace

std::vector<std::string> install_commands(const InstallPlan& p, const PlanMachine& m, const std::string& env_dir,
                                          const std::vector<std::string>& with) {
  if (!p.ok) return {};
  return m.platform == "win-amd64" ? powershell_commands(p, m, env_dir, with) : posix_commands(p, m, env_dir, with);
}

std::string environment_yml(const InstallPlan& p, const std::string& name, const std::string& python,
                            const std::vector<std::string>& with) {
  std::string y = "# dlready setup --conda " + name + ": PyTorch " + p.release + " (" + p.variant +
                  ") for this machine; `dlready setup --dry-run` says why.\n"
                  "# pip inside conda: PyTorch publishes no conda packages after 2.5.\n"
                  "name: " + name + "\nchannels:\n  - conda-forge\ndependencies:\n  - python=" + python +
                  "\n  - pip\n  - pip:\n    - --index-url " + p.index_url + "\n    - " + p.requirement + "\n";
  for (const auto& w : with) y += "    - " + w + "\n";
  return y;
}

std::vector<std::string> conda_commands(const InstallPlan& p, const PlanMachine& m, const std::string& name,
                                        const std::vector<std::string>& with) {
  if (!p.ok) return {};
  // Printed for a user to copy: an index's user:password stays where the user keeps it.
  InstallPlan shown = p;
  shown.index_url = without_credentials(p.index_url);
  const std::string yml = environment_yml(shown, name, m.python, with);
  const bool windows = m.platform == "win-amd64";
  const std::string write = windows ? "@'\n" + yml + "'@ | Set-Content -Encoding utf8 environment.yml"
                                    : "cat > environment.yml <<'EOF'\n" + yml + "EOF";
  const std::string run = "conda run --name " + name + " python -c ";
  return {write, "conda env update --name " + name + " --file environment.yml",
          windows ? run + "\"" + proof(false, '\'') + "\"" : run + "'" + proof(starts_with(m.platform, "macos-"), '"') + "'",
          "conda activate " + name + (windows ? "; dlready.exe doctor" : " && dlready doctor")};
}

std::string plan_text(const InstallPlan& p, const PlanMachine& m, const std::vector<std::string>& seen,
                      const std::vector<std::string>& commands, bool another_machine) {
  PlanWording words;
  if (m.platform == "win-amd64") words = {", win_amd64", " (PowerShell)"};
  else if (starts_with(m.platform, "macos-")) words = {", " + m.platform, ""};
  if (another_machine) words.machine = "the machine given";
  return render_plan_text(p, seen, commands, words);
}

nlohmann::json install_plan_json(const InstallPlan& p, const PlanMachine& m, const std::string& environment,
                                 const std::vector<std::string>& with, const std::vector<std::string>& seen,
                                 const std::vector<std::string>& commands) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& g : m.gpus) gpus.push_back(sm(g));
  return {{"schema", "dlready.setup-plan/1"},
          {"ok", p.ok},
          {"error", p.error},
          {"machine",
           {{"driver", m.driver ? nlohmann::json(*m.driver) : nlohmann::json()},
            {"gpus", gpus},
            {"python", m.python},
            {"platform", m.platform},
            {"macos", m.macos.empty() ? nlohmann::json() : nlohmann::json(m.macos)},
            {"seen", seen}}},
          {"release", p.release},
          {"variant", p.variant},
          {"cuda", p.cuda},
          {"compatibility", p.compatibility},
          {"requirement", p.requirement},
          {"with", with},
          {"index_url", without_credentials(p.index_url)},
          {"environment", environment},
          {"why", p.why},
          {"warnings", p.warnings},
          {"commands", commands}};
}

std::string candidates_text(const std::vector<Candidate>& candidates,
                            const std::vector<std::string>& seen, bool all) {
  std::string out = "dlready setup --candidates — every PyTorch build for the machine, graded\n";
  for (const auto& line : seen) out += "  seen: " + line + "\n";
  size_t left_out = 0;
  for (const auto& c : candidates) {
    const bool runs = c.status == "direct" || c.status == "minor" || c.status == "unknown";
    if (!runs && !all) {
      ++left_out;
      continue;
    }
    std::string row = std::string(c.chosen ? "* " : "  ") + c.release;
    row.resize(10, ' ');
    row += c.variant;
    row.resize(18, ' ');
    row += c.status;
    if (!c.reason.empty()) {
      row.resize(32, ' ');
      row += c.reason;
    }
    out += row + "\n";
  }
  if (candidates.empty())
    out +=
        "  none: a Mac's and a Jetson's builds are planned from their own tables (setup "
        "--dry-run)\n";
  if (left_out > 0)
    out += "  (" + std::to_string(left_out) +
           " more that do not run here: --all lists them with why; * is the plan)\n";
  else
    out += "  (* is the plan)\n";
  return out;
}

namespace {

// The machine as --candidates and --why describe it (without a Mac's macOS).
nlohmann::json graded_machine_json(const PlanMachine& m, const std::vector<std::string>& seen) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& g : m.gpus) gpus.push_back(sm(g));
  return {{"driver", m.driver ? nlohmann::json(*m.driver) : nlohmann::json()},
          {"gpus", gpus},
          {"python", m.python},
          {"platform", m.platform},
          {"seen", seen}};
}

}  // namespace

std::string build_why_text(const std::vector<BuildWhy>& builds, const std::string& asked,
                           const std::vector<std::string>& seen, const InstallPlan& plan) {
  std::string out = "dlready setup --why " + asked + " — that build against the machine, check by check\n";
  for (const auto& line : seen) out += "  seen: " + line + "\n";
  for (const auto& b : builds) {
    out += "  " + b.release + " " + b.variant + ": " + b.status +
           (b.planned ? " (the plan)" : plan.ok ? " (the plan is " + plan.release + " " + plan.variant + ")" : "") + "\n";
    for (const auto& c : b.checks) {
      std::string row = "    [" + c.verdict + "]";
      row.resize(20, ' ');
      row += c.name;
      row.resize(29, ' ');
      out += row + c.detail + "\n";
    }
  }
  return out;
}

nlohmann::json build_why_json(const std::vector<BuildWhy>& builds, const PlanMachine& m,
                              const std::vector<std::string>& seen) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& b : builds) {
    nlohmann::json checks = nlohmann::json::array();
    for (const auto& c : b.checks) checks.push_back({{"check", c.name}, {"verdict", c.verdict}, {"detail", c.detail}});
    rows.push_back({{"release", b.release}, {"variant", b.variant}, {"status", b.status}, {"planned", b.planned},
                    {"checks", checks}});
  }
  return {{"schema", "dlready.setup-why/1"}, {"machine", graded_machine_json(m, seen)}, {"builds", rows}};
}

nlohmann::json candidates_json(const std::vector<Candidate>& candidates, const PlanMachine& m,
                               const std::vector<std::string>& seen) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& c : candidates)
    rows.push_back({{"release", c.release},
                    {"variant", c.variant},
                    {"cuda", c.cuda},
                    {"status", c.status},
                    {"reason", c.reason},
                    {"chosen", c.chosen}});
  return {{"schema", "dlready.setup-candidates/1"}, {"machine", graded_machine_json(m, seen)}, {"candidates", rows}};
}

}  // namespace dlready
