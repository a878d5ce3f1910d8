// setup's plan for a Mac (planner/install_plan.hpp): PyPI's default index, never a CUDA one; the
// newest release whose wheels this CPU, this macOS and this Python can install and whose MPS works
// on this macOS, else the newest that installs (on the CPU), and why — from mac_wheels' table.
#include "core/text.hpp"
#include "planner/install_plan.hpp"
#include "compat/mac_wheels.hpp"

namespace dlready {
namespace {

constexpr const char* kPypi = "https://pypi.org/simple";

std::string release_line_of(const std::string& torch) {
  auto p = split(torch, '.');
  return p.size() >= 2 ? p[0] + "." + p[1] : torch;
}

// The index: the user's when it is a PyPI mirror; a PyTorch variant index serves no Mac.
void choose_mac_index(const PlanMachine& m, InstallPlan& p) {
  p.index_url = kPypi;
  if (m.index_url.empty()) {
    p.why.push_back("index: PyPI (where the macOS wheels are; CUDA does not exist on macOS)");
    return;
  }
  if (m.index_url.find("download.pytorch.org/whl/") != std::string::npos) {
    p.warnings.push_back("the index you set (" + m.index_url + ") is PyTorch's variant index, which has no macOS "
                         "wheels to plan from: the plan uses PyPI");
    return;
  }
  p.index_url = m.index_url;
  p.why.push_back("index: " + m.index_url + " (yours; a PyPI mirror serves PyPI's macOS wheels)");
}

// The release asked for (--torch), checked against this Mac.
bool plan_requested(const PlanMachine& m, const std::string& cpu, InstallPlan& p) {
  std::string release = release_line_of(m.torch);
  if (auto misfit = mac_wheel_misfit(release, cpu, m.macos, m.python)) {
    p.error = "torch " + m.torch + " cannot be installed on this Mac: " + *misfit;
    return false;
  }
  p.release = release;
  p.why.push_back("release " + release + ": the one asked for (--torch " + m.torch + ")");
  return true;
}

// The newest release for this Mac: with MPS where one has it here, else the newest that installs.
bool plan_newest(const PlanMachine& m, const std::string& cpu, InstallPlan& p) {
  auto with_mps = cpu == "arm64" ? newest_mac_release(cpu, m.macos, m.python, true) : std::nullopt;
  auto any = newest_mac_release(cpu, m.macos, m.python, false);
  if (!any) {
    p.error = cpu == "x86_64" ? "no torch has macOS x86_64 wheels for Python " + m.python +
                                    ": the last ones (2.2.2) are for Python 3.8 to 3.12 (plan with --python 3.12)"
                              : "no torch release has macOS arm64 wheels for Python " + m.python + " on macOS " + m.macos +
                                    " (plan with --python 3.12)";
    return false;
  }
  p.release = with_mps ? *with_mps : *any;
  p.why.push_back("release " + p.release + ": the newest PyPI serves this Mac (" + cpu + ", macOS " + m.macos +
                  ", Python " + m.python + ")" + (with_mps && *with_mps != *any ? " whose MPS runs here" : ""));
  if (!with_mps && cpu == "arm64" && compare_versions(m.macos, "12.3") >= 0)
    if (auto other = newest_mac_release(cpu, m.macos, "3.12", true))
      p.warnings.push_back("for MPS on macOS " + m.macos + ": torch " + *other + " with Python 3.12 (Python " + m.python +
                           " has no wheels of a torch whose MPS runs here; plan with --python 3.12)");
  if (with_mps && *with_mps != *any)
    p.why.push_back(*any + " installs too, but its MPS needs macOS " + mps_needs_macos(*any) +
                    ": it would run on the CPU here");
  return true;
}

}  // namespace

InstallPlan plan_mac_install(const PlanMachine& m) {
  InstallPlan p;
  const std::string cpu = m.platform == "macos-x86_64" ? "x86_64" : "arm64";
  if (m.macos.empty() || split(m.macos, '.').empty() || !parse_int(split(m.macos, '.')[0])) {
    p.error = "the Mac's macOS version is unknown: give it with --macos 14.5";
    return p;
  }
  if (!(m.torch.empty() ? plan_newest(m, cpu, p) : plan_requested(m, cpu, p))) return p;
  p.ok = true;
  std::string needs = mps_needs_macos(p.release);
  bool mps = cpu == "arm64" && compare_versions(m.macos, needs) >= 0;
  p.variant = mps ? "mps" : "cpu";
  if (mps) p.why.push_back("MPS: torch " + p.release + " needs macOS " + needs + ", this Mac has " + m.macos);
  else if (cpu == "x86_64") p.why.push_back("an Intel Mac: the CPU (MPS only with an AMD GPU on macOS 12.3 or newer)");
  else p.warnings.push_back("torch " + p.release + "'s MPS needs macOS " + needs + ": on " + m.macos + " it runs on the CPU");
  bool exact = split(m.torch, '.').size() >= 3;
  p.requirement = "torch==" + (exact ? m.torch : p.release + ".*");
  choose_mac_index(m, p);
  return p;
}

}  // namespace dlready
