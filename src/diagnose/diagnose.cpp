// diagnose(): the examined platform's record says which rule groups run, in which order, and how
// their findings become the verdict; each group is its rules' one function (rules.hpp).
#include <algorithm>

#include "diagnose/rules.hpp"
#include "platform/platform_record.hpp"

namespace dlready {
namespace {

void run_group(RuleGroup group, const Facts& f, const Derived& d, std::vector<Finding>& out) {
  switch (group) {
    case RuleGroup::system: return rules_system(f, d, out);
    case RuleGroup::driver: return rules_driver(f, d, out);
    case RuleGroup::devices: return rules_devices(f, d, out);
    // A malformed allocator setting is wrong with or without a GPU (the job fails once there is one).
    case RuleGroup::allocator: return alloc_conf_rules(f, out);
    case RuleGroup::python: return rules_python(f, d, out);
    case RuleGroup::software: return rules_software(f, d, out);
    case RuleGroup::libraries: return rules_libraries(f, d, out);
    case RuleGroup::services: return rules_services(f, d, out);
    case RuleGroup::arm: return rules_arm(f, d, out);
    case RuleGroup::windows: return rules_windows(f, d, out);
    case RuleGroup::macos: return rules_macos(f, d, out);
  }
}

Verdict verdict_of(VerdictKind kind, const Facts& f, const Derived& d, const std::vector<Finding>& findings) {
  switch (kind) {
    case VerdictKind::windows_cuda: return windows_verdict(f, d, findings);
    case VerdictKind::macos_mps: return macos_verdict(f, d, findings);
    case VerdictKind::linux_cuda: break;
  }
  return make_verdict(f, d, findings);
}

// The torch that would be imported works for this machine (issue 50, item 10: "Recommended install"
// was printed on every run): no error finding, and where there is a GPU a CUDA build the verdict finds
// usable; a CPU-only machine runs any build. Then nothing needs installing.
// Without a GPU, "no NVIDIA GPU" is an error no install fixes: the torch installed trains on the CPU,
// and a CPU build offered beside it is no better (issue 62, item 14).
bool installed_torch_fits(const Facts& f, const Derived& d, const Report& r) {
  for (const auto& x : r.findings)
    if (x.severity == Severity::error && (d.gpu_evidence || x.check != "gpu")) return false;
  const TorchInstall* primary = primary_torch(f);
  if (!primary) return false;
  if (!d.gpu_evidence) return true;
  for (const auto& tv : r.verdict.torch)
    if (tv.location == primary->site_packages) return tv.cuda_available;
  return false;
}

}  // namespace

Report diagnose(const Facts& facts) {
  const PlatformRecord& platform = platform_of(facts);
  Report rep;
  Derived d = derive(facts);
  for (RuleGroup group : platform.rule_groups) run_group(group, facts, d, rep.findings);
  rep.verdict = verdict_of(platform.verdict, facts, d, rep.findings);
  if (platform.recommends_installs) {
    rep.recommendations = make_recommendations(facts, d);
    // Only a release newer than the tables (from what setup last read of the index) is worth saying then.
    if (installed_torch_fits(facts, d, rep))
      std::erase_if(rep.recommendations,
                    [](const Recommendation& r) { return r.title.find("is on the index, newer") == std::string::npos; });
  }
  auto add = [&](const std::vector<std::string_view>& sections) {
    for (auto s : sections) rep.not_applicable.emplace_back(s);
  };
  add(platform.not_applicable);
  if (facts.driver.status == ProbeStatus::not_run) add(platform.not_applicable_without_driver_probe);
  if (!d.gpu_evidence) add(platform.not_applicable_without_gpu);
  return rep;
}

}  // namespace dlready
