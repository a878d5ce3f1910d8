// `dlready setup` as every build runs it: the same refusals, the same plan, the commands in the
// shell of the platform planned for; only a build with an installer installs.
#include <cstdio>

#include "core/json_text.hpp"
#include "core/text.hpp"
#include "platform/platform_record.hpp"
#include "setup/plan_commands.hpp"
#include "setup/setup_plan.hpp"

namespace dlready {
namespace {

ExitCode refuse(const std::string& why) {
  std::fprintf(stderr, "dlready setup: %s\n", why.c_str());
  return ExitCode::usage;
}

// --why SPEC: "torch==2.12.1+cu130", "2.12+cu130", "2.12" -> the builds' checks; exit 0 when one
// of them runs here, 1 when none does, 2 for a SPEC that is no build.
ExitCode explain_why(const SetupRequest& a, const SetupPlan& s) {
  std::string spec = a.why;
  if (starts_with(spec, "torch==")) spec.erase(0, 7);
  const std::string version = spec.substr(0, spec.find('+'));
  const std::string variant = spec.find('+') == std::string::npos ? "" : spec.substr(spec.find('+') + 1);
  const bool version_ok = !version.empty() && version.find_first_not_of("0123456789.") == std::string::npos &&
                          version.find('.') != std::string::npos;
  const bool variant_ok = variant.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789") == std::string::npos;
  if (!version_ok || !variant_ok)
    return refuse("--why " + printable(a.why, 80) + " is not a build: give torch==2.12.1+cu130, 2.12+cu130 or 2.12");
  auto builds = explain_build(s.machine, version, variant);
  std::string text = a.json ? json_text(build_why_json(builds, s.machine, s.seen), 2) + "\n"
                            : build_why_text(builds, a.why, s.seen, s.plan);
  std::fwrite(text.data(), 1, text.size(), stdout);
  for (const auto& b : builds)
    if (b.status != "incompatible" && b.status != "unavailable") return ExitCode::ok;
  return ExitCode::failed;
}

}  // namespace

ExitCode run_setup(const SetupRequest& a, const Installer& installer) {
  // Refused before anything is read, planned or printed, as the other refusals are.
  const bool print_only = a.dry_run || a.json || a.candidates || !a.why.empty();
  if (!installer.install && !print_only) {
    const PlatformRecord* here = platform_of_setup_target(this_build_target());
    return refuse("the " + std::string(here ? here->title : "this") +
                  " build plans and installs nothing: add --dry-run for the plan and the commands that install it");
  }
  if (plans_another_machine(a) && !print_only)
    return refuse("--driver/--gpu/--no-gpu/--jetpack/--platform of another platform plan for another machine: add "
                  "--dry-run (an install here follows this machine)");
  SetupPlan s;
  if (Status planned = plan_setup(a, s); !planned.ok()) return refuse(planned.error());
  if (!a.why.empty()) return explain_why(a, s);
  if (a.candidates) {
    auto graded = plan_candidates(s.machine);
    std::string text = a.json ? json_text(candidates_json(graded, s.machine, s.seen), 2) + "\n"
                              : candidates_text(graded, s.seen, a.all);
    std::fwrite(text.data(), 1, text.size(), stdout);
    return s.plan.ok ? ExitCode::ok : ExitCode::failed;
  }
  // A capture of another platform's machine under --root is planned, never installed here.
  const PlatformRecord* planned_for = platform_of_setup_target(s.machine.platform);
  if (!print_only && planned_for != platform_of_setup_target(this_build_target()))
    return refuse("the machine read is a " + std::string(planned_for ? planned_for->title : "another platform's") +
                  " machine (" + s.machine.platform + "): add --dry-run for the plan and its commands, run there");
  // The dry run refuses what the install would refuse, with the same line and status, before any plan.
  if (installer.check && a.conda.empty() && !plans_another_machine(a))
    if (Status target = installer.check(a, s.machine); !target.ok()) return refuse(target.error());
  if (a.json) {
    std::string text = json_text(plan_json(s, a), 2) + "\n";
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    std::fputs(plan_text(s.plan, s.machine, s.seen, a.dry_run || !installer.install ? s.commands : std::vector<std::string>{},
                         plans_another_machine(a))
                   .c_str(),
               stdout);
  }
  if (!s.plan.ok) return ExitCode::failed;
  if (print_only) return ExitCode::ok;
  std::fflush(stdout);
  return installer.install(s, a);
}

}  // namespace dlready
