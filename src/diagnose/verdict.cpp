#include <algorithm>

#include "core/text.hpp"
#include "diagnose/compat.hpp"
#include "diagnose/rules.hpp"

namespace dlready {
std::string pip_install_command(const Facts& f, const Derived& d) {
  const std::string idx = "https://download.pytorch.org/whl/";
  if (!d.gpu_evidence) return "pip install torch torchvision --index-url " + idx + "cpu";
  // The newest release line, its CUDA variants from the newest CUDA down.
  std::vector<TorchVariant> line;
  for (const auto& v : torch_variants())
    if (v.torch == newest_torch_release()) line.push_back(v);
  std::sort(line.begin(), line.end(), [](const auto& a, const auto& b) { return compare_versions(a.cuda, b.cuda) > 0; });
  for (const auto& v : line) {
    auto min = min_driver_for_cuda(v.cuda);
    if (d.driver_version && min && compare_versions(*d.driver_version, *min) < 0) continue;
    if (!d.driver_version && d.driver_max_cuda && compare_versions(*d.driver_max_cuda, v.cuda) < 0) continue;
    bool covers = true;
    for (const auto& dev : f.driver.devices)
      if (dev.cc_major && dev.cc_minor && !arch_list_covers(v.arch_list, *dev.cc_major, *dev.cc_minor)) covers = false;
    if (!covers) continue;
    return "pip install torch torchvision --index-url " + idx + v.variant;
  }
  return "pip install torch torchvision --index-url " + idx + "cu126 (the oldest CUDA line PyTorch still ships; "
         "or upgrade the driver)";
}

Verdict make_verdict(const Facts& f, const Derived& d, const std::vector<Finding>& findings) {
  Verdict v;
  std::vector<std::string> errors;
  for (const auto& x : findings)
    if (x.severity == Severity::error) errors.push_back(x.title + " [" + x.id + "]");
  bool driver_ok = f.driver.status == ProbeStatus::ok && f.driver.init_result == 0 &&
                   f.driver.device_count.value_or(0) > 0;
  if (!errors.empty())
    v.cuda_usable = false;
  else if (driver_ok)
    v.cuda_usable = true;
  else if (f.driver.status == ProbeStatus::not_run)
    v.cuda_usable = std::nullopt;
  else
    v.cuda_usable = false;

  bool any_torch = !f.libtorch.installs.empty();
  for (const auto& e : f.python.envs) {
    for (const auto& t : e.torch) {
      any_torch = true;
      TorchVerdict tv;
      tv.location = t.site_packages;
      tv.version = t.version.value_or("unknown");
      tv.cuda = t.cuda;
      if (!t.cuda) {
        tv.reason = "CPU-only build (torch.version.cuda is None)";
      } else if (v.cuda_usable != true) {
        tv.reason = errors.empty() ? "the driver could not be checked" : "machine: " + errors.front();
      } else if (auto min = min_driver_for_cuda(*t.cuda);
                 min && d.driver_version && compare_versions(*d.driver_version, *min) < 0) {
        tv.reason = "driver " + *d.driver_version + " is older than " + *min + " (CUDA " + *t.cuda + ")";
      } else {
        tv.cuda_available = true;
        tv.reason = "CUDA " + *t.cuda + " build, driver supports CUDA " + d.driver_max_cuda.value_or("?") + ", " +
                    std::to_string(*f.driver.device_count) + " device(s) visible";
      }
      v.torch.push_back(tv);
    }
  }
  v.cpu_training_ok = any_torch;
  std::string cpu = any_torch ? "CPU training works (dlready train --device cpu)."
                              : "CPU training needs PyTorch/LibTorch first (see torch-not-installed).";
  if (v.cuda_usable == true) {
    v.summary = "CUDA is usable: " + std::to_string(*f.driver.device_count) + " GPU(s), driver " +
                d.driver_version.value_or("?") + " (CUDA " + d.driver_max_cuda.value_or("?") + "). " + cpu;
  } else if (v.cuda_usable == false) {
    v.summary = "CUDA is not usable: " + (errors.empty() ? std::string("the driver did not report a usable device")
                                                         : join(errors, "; ")) + ". " + cpu;
  } else {
    v.summary = "CUDA could not be checked (the driver probe did not run). " + cpu;
  }
  return v;
}

std::vector<Recommendation> make_recommendations(const Facts& f, const Derived& d) {
  std::vector<Recommendation> r;
  if (!d.gpu_evidence) {
    r.push_back({"PyTorch for this machine (no NVIDIA GPU): the CPU build",
                 {pip_install_command(f, d), "conda install pytorch cpuonly -c pytorch (conda users)",
                  "LibTorch: https://download.pytorch.org/libtorch/cpu/libtorch-shared-with-deps-latest.zip"}});
    return r;
  }
  std::string cmd = pip_install_command(f, d);
  std::string variant = cmd.substr(cmd.rfind('/') + 1);
  variant = variant.substr(0, variant.find(' '));
  r.push_back({"PyTorch for driver " + d.driver_version.value_or("?") + " (CUDA up to " +
                   d.driver_max_cuda.value_or("?") + ")",
               {cmd, "uv pip install torch torchvision --torch-backend=" + variant,
                "LibTorch: https://download.pytorch.org/libtorch/" + variant + "/libtorch-shared-with-deps-latest.zip"}});
  return r;
}

Report diagnose(const Facts& facts) {
  Report rep;
  Derived d = derive(facts);
  rules_system(facts, d, rep.findings);
  rules_driver(facts, d, rep.findings);
  rules_software(facts, d, rep.findings);
  rules_libraries(facts, d, rep.findings);
  rep.verdict = make_verdict(facts, d, rep.findings);
  rep.recommendations = make_recommendations(facts, d);
  return rep;
}

}  // namespace dlready
