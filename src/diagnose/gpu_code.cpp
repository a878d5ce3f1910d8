#include "diagnose/gpu_code.hpp"

#include "diagnose/rules.hpp"

namespace dlready {

std::string arch_text(const std::vector<int>& archs, const char* prefix) {
  std::string s;
  for (int a : archs) s += (s.empty() ? "" : " ") + std::string(prefix) + std::to_string(a);
  return s;
}

GpuCodeOnGpu gpu_code_on(const GpuCode& code, int major, int minor) {
  GpuCodeOnGpu r;
  int cc = major * 10 + minor;
  r.arch = "sm_" + std::to_string(cc);
  int best_sass = 0, best_ptx = 0;
  for (int a : code.sass)
    if (sass_runs_on(a, major, minor)) best_sass = std::max(best_sass, a);
  for (int a : code.ptx)
    if (a <= cc) best_ptx = std::max(best_ptx, a);
  r.runs = best_sass || best_ptx;
  if (best_sass)
    r.how = "SASS sm_" + std::to_string(best_sass);
  else if (best_ptx)
    r.how = "PTX compute_" + std::to_string(best_ptx) + ", JIT-compiled by the driver at first use";
  else
    r.how = "no SASS sm_" + std::to_string(major) + "x up to " + r.arch + ", no PTX up to compute_" + std::to_string(cc);
  return r;
}

std::vector<GpuCodeView> gpu_code_views(const Facts& f) {
  std::vector<GpuCodeView> out;
  if (f.gpu_code.empty()) return out;  // no need to derive the GPUs
  auto gpus = derive(f).gpu_archs;
  for (const auto& code : f.gpu_code) {
    GpuCodeView v;
    v.library = code.library;
    if (code.torch_version) v.owner = "torch " + *code.torch_version;
    v.summary = (code.sass.empty() ? "no SASS" : "SASS " + arch_text(code.sass, "sm_")) + ", " +
                (code.ptx.empty() ? "no PTX" : "PTX " + arch_text(code.ptx, "compute_"));
    if (code.compressed) v.summary += " (compressed)";
    if (!code.error.empty()) v.summary += "; the scan stopped: " + code.error;
    for (const auto& g : gpus) {
      auto on = gpu_code_on(code, g.major, g.minor);
      on.gpu = g.label;
      v.gpus.push_back(on);
    }
    out.push_back(v);
  }
  return out;
}

}  // namespace dlready
