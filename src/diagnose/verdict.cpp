#include <algorithm>

#include "core/text.hpp"
#include "compat/compat.hpp"
#include "planner/install_plan.hpp"
#include "platform/platform_record.hpp"
#include "diagnose/rules.hpp"

namespace dlready {
namespace {

bool driver_runs(const Derived& d, const TorchVariant& v) {
  auto min = min_driver_for_cuda(v.cuda);
  if (d.driver_version && min) return compare_versions(*d.driver_version, *min) >= 0;
  if (d.driver_max_cuda) return compare_versions(*d.driver_max_cuda, v.cuda) >= 0;
  return true;  // driver unknown: the doctor's other findings say why
}

bool covers_gpus(const Derived& d, const TorchVariant& v) {
  for (const auto& g : d.gpu_archs)
    if (!arch_list_covers(v.arch_list, g.major, g.minor)) return false;
  return true;
}

// The Python a plan is for: the active environment's, else the first with torch, else the first
// venv or conda one with a known X.Y; "" when none says.
std::string python_for_plan(const Facts& f) {
  const PythonEnv* pick = nullptr;
  for (const auto& e : f.python.envs)
    if (e.python_version && split(*e.python_version, '.').size() == 2 &&
        (!pick || (e.active && !pick->active) || (!pick->active && pick->torch.empty() && !e.torch.empty())))
      pick = &e;
  return pick ? *pick->python_version : "";
}

// setup's plan for this machine from dlready's tables (never the network): the release and variant
// its `dlready setup` installs, so the doctor's advice and setup's install are one build.
std::optional<InstallPlan> tables_plan(const Facts& f, const Derived& d, const std::string& python) {
  const std::string target = setup_target_of(f);
  if (starts_with(target, "macos-")) return std::nullopt;
  PlanMachine m;
  m.platform = target;
  m.driver = d.driver_version;
  for (const auto& g : d.gpu_archs) m.gpus.push_back({g.major, g.minor});
  m.python = python;
  auto p = plan_install(m);
  if (!p.ok) return std::nullopt;
  return p;
}

}  // namespace

std::optional<TorchVariant> best_torch_variant(const Facts& f, const Derived& d) {
  // The environment's Python first; a Python no fitting release has wheels for still gets the
  // build for the machine (the Python is then the fix, said by its own finding).
  auto plan = tables_plan(f, d, python_for_plan(f));
  if (!plan) plan = tables_plan(f, d, "");
  if (plan)
    for (const auto& v : torch_variants_newest_first(d.machine))
      if (v.torch == plan->release && v.variant == plan->variant) return v;
  for (const auto& v : torch_variants_newest_first(d.machine))
    if (driver_runs(d, v) && covers_gpus(d, v)) return v;
  return std::nullopt;
}

namespace {

// The newest build with code for every GPU, whatever the driver runs (the driver is then the fix).
std::optional<TorchVariant> newest_covering_gpus(const Derived& d) {
  for (const auto& v : torch_variants_newest_first(d.machine))
    if (covers_gpus(d, v)) return v;
  return std::nullopt;
}

// The pip line of one build. Releases before 1.9 are on per-variant find-links pages
// (download.pytorch.org/whl/cu92/torch_stable.html), not a simple index, and only for old Pythons.
std::string pip_line(const Derived& d, const TorchVariant& v) {
  const std::string idx = "https://download.pytorch.org/whl/";
  if (compare_versions(v.torch, "1.9") < 0) {
    auto py = python_range(v.torch);
    return "pip install 'torch==" + v.torch + ".*' torchvision -f " + idx + v.variant + "/torch_stable.html" +
           (py ? " (torch " + v.torch + " has wheels for Python " + py->min + " to " + py->max + " only)" : "");
  }
  const auto& table = torch_variants_newest_first(d.machine);
  std::string pin = !table.empty() && v.torch == table.front().torch ? "torch" : "'torch==" + v.torch + ".*'";
  return "pip install " + pin + " torchvision --index-url " + idx + v.variant;
}

std::string gpu_names(const Derived& d) {
  std::vector<std::string> names;
  for (const auto& g : d.gpu_archs) names.push_back(g.label + ", sm_" + std::to_string(g.major) + std::to_string(g.minor));
  return join(names, ", ");
}

}  // namespace

std::string pip_install_command(const Facts& f, const Derived& d) {
  const std::string cpu = "pip install torch torchvision --index-url https://download.pytorch.org/whl/cpu";
  if (!d.gpu_evidence) return cpu;
  if (auto v = best_torch_variant(f, d)) return pip_line(d, *v);
  // Nothing fits this driver and GPU: a build with code for the GPU needs a newer driver, or no
  // published build has code for it at all (Kepler sm_30, ...): a source build, never the CPU wheel
  // as if it were the answer.
  if (auto v = newest_covering_gpus(d))
    return "upgrade the driver to one for CUDA " + v->cuda + " or newer, then: " + pip_line(d, *v);
  return "no published PyTorch build has code for " + gpu_names(d) + "; build it from source with TORCH_CUDA_ARCH_LIST "
         "set to the GPU's capability (https://github.com/pytorch/pytorch#from-source), or train on the CPU: " + cpu;
}

std::string pip_install_command_for(const Facts& f, const Derived& d, const std::string& why) {
  std::string install = pip_install_command(f, d);
  return starts_with(install, "pip install") && install.find('(') == std::string::npos ? install + " (" + why + ")" : install;
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

  // torch.cuda.is_available() only asks the driver for devices: a build without code for the GPU
  // still says True and then fails at the first kernel ("no kernel image is available").
  bool arch_only = !errors.empty();
  for (const auto& x : findings)
    if (x.severity == Severity::error && x.id != "arch-not-supported") arch_only = false;
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
      } else if (v.cuda_usable != true && !(arch_only && driver_ok)) {
        tv.reason = errors.empty() ? "the driver could not be checked" : "machine: " + errors.front();
      } else if (auto min = min_driver_for_cuda(*t.cuda);
                 min && d.driver_version && compare_versions(*d.driver_version, *min) < 0) {
        tv.reason = "driver " + *d.driver_version + " is older than " + *min + " (CUDA " + *t.cuda + ")";
      } else {
        tv.cuda_available = true;
        tv.reason = "CUDA " + *t.cuda + " build, driver supports CUDA " + d.driver_max_cuda.value_or("?") + ", " +
                    std::to_string(*f.driver.device_count) + " device(s) visible";
        if (arch_only) tv.reason += "; but its kernels cannot run on this GPU (arch-not-supported)";
      }
      v.torch.push_back(tv);
    }
  }
  const auto& own = f.own_module;
  v.cpu_training_ok = any_torch || own.libtorch_dir.has_value();
  // Where the doctor looked for dlready's module and it cannot run, `dlready train` is not the answer
  // until it is built (issue 50, item 2: the verdict said "works (dlready train)" beside that finding).
  bool module_missing = !own.error.empty() && !own.libtorch_dir;
  std::string train_after = own.built_by ? "; dlready train builds its module for this torch first (" + *own.built_by + ")"
                                         : "; dlready train needs its module first (see dlready-module-missing)";
  // `import torch` itself fails (a library the loader picks lacks a symbol): no training at all
  // with that torch until it is fixed, CPU included.
  std::string import_fails;
  for (const auto& x : findings)
    if (x.id == "library-symbol-missing" && import_fails.empty()) import_fails = x.id;
  if (!import_fails.empty()) {
    v.cpu_training_ok = false;
    for (auto& tv : v.torch) tv.cuda_available = false;
  }
  std::string cpu = !import_fails.empty() ? "CPU training needs " + import_fails + " fixed first: import torch fails here."
                    : any_torch && module_missing ? "CPU training works in PyTorch" + train_after + "."
                    : any_torch ? "CPU training works (dlready train --device cpu)."
                    : own.libtorch_dir
                        ? "CPU training works with dlready train (its own LibTorch " + own.torch_version.value_or("") +
                              " in " + *own.libtorch_dir + "); no Python here has PyTorch (see torch-not-installed)."
                        : "CPU training needs PyTorch/LibTorch first (see torch-not-installed).";
  // Where CUDA works, what works is GPU training: the CPU is mentioned only where it is the answer.
  bool gpu_torch = own.torch_version && own.torch_version->find("+cu") != std::string::npos;
  for (const auto& tv : v.torch) gpu_torch = gpu_torch || tv.cuda_available;
  if (v.cuda_usable == true && gpu_torch && !arch_only)
    cpu = module_missing ? "GPU training works in PyTorch (device \"cuda\")" + train_after + "."
                         : "GPU training works: dlready train (or PyTorch with device \"cuda\").";
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

namespace {

// A release newer than the tables that the index (as `dlready setup` last read it) serves and that
// fits this machine: its plan, else nullopt. The doctor never goes to the network itself.
std::optional<InstallPlan> plan_from_index(const Facts& f, const Derived& d) {
  if (!f.torch_index) return std::nullopt;
  // A plan can only choose a release it knows: where the index lists none newer than the tables,
  // it could not be newer either (planning it was a fifth of the doctor's rule time).
  const std::string newest = newest_torch_release();
  if (std::none_of(f.torch_index->releases.begin(), f.torch_index->releases.end(),
                   [&](const IndexRelease& r) { return compare_versions(r.version, newest) > 0; }))
    return std::nullopt;
  PlanMachine m;
  m.driver = d.driver_version;
  for (const auto& g : d.gpu_archs) m.gpus.push_back({g.major, g.minor});
  m.python = python_for_plan(f);
  // No environment says: the oldest Python the newest release on the index has wheels for (a new
  // environment made by `dlready setup` with python3 is most likely to be one of them).
  if (m.python.empty() && !f.torch_index->releases.empty())
    for (const auto& [variant, pythons] : f.torch_index->releases.front().pythons)
      for (const auto& py : pythons)
        if (py != "*" && (m.python.empty() || compare_versions(py, m.python) < 0)) m.python = py;
  if (m.python.empty()) return std::nullopt;
  m.platform = f.os.arch.value_or("x86_64") == "aarch64" ? "linux-aarch64" : "linux-x86_64";
  m.index = f.torch_index;
  if (!f.torch_index->variant_index.empty()) m.torch_index = f.torch_index->variant_index;  // a mirror, if setup used one
  // The newest release on the index, as it is: its build, even one this driver runs only through
  // minor-version compatibility (setup itself may prefer an older release's native build).
  if (!f.torch_index->releases.empty()) {
    auto parts = split(f.torch_index->releases.front().version, '.');
    if (parts.size() >= 2) m.torch = parts[0] + "." + parts[1];
  }
  auto p = plan_install(m);
  if (!p.ok || compare_versions(p.release, newest) <= 0) return std::nullopt;
  return p;
}

}  // namespace

std::vector<Recommendation> make_recommendations(const Facts& f, const Derived& d) {
  std::vector<Recommendation> r;
  if (auto newer = plan_from_index(f, d))
    r.push_back({"PyTorch " + newer->release + " " + newer->variant + " is on the index, newer than dlready's tables (" +
                     kCompatTableDate + ")",
                 {"dlready setup ~/venvs/torch", "pip install torch torchvision --index-url " + newer->index_url}});
  if (!d.gpu_evidence) {
    r.push_back({"PyTorch for this machine (no NVIDIA GPU): the CPU build",
                 {"dlready setup ~/venvs/torch", pip_install_command(f, d),
                  "uv pip install torch torchvision --torch-backend=cpu",
                  "LibTorch: https://download.pytorch.org/libtorch/cpu/libtorch-shared-with-deps-latest.zip"}});
    return r;
  }
  if (std::string index = f.arm && f.arm->tegra ? jetson_index(f.arm->jetpack.value_or("")) : ""; !index.empty()) {
    r.push_back({"PyTorch for this Jetson (JetPack " + *f.arm->jetpack + "): the wheels built for it",
                 {"dlready setup ~/venvs/torch", "pip install torch torchvision --index-url " + index}});
    return r;
  }
  auto best = best_torch_variant(f, d);
  // What the newest release needs, when the driver (or GPU) rules it out.
  std::optional<TorchVariant> newest_fit;
  const auto& table = torch_variants_newest_first(d.machine);
  const std::string newest = table.empty() ? newest_torch_release() : table.front().torch;
  for (const auto& v : table)
    if (v.torch == newest && covers_gpus(d, v) &&
        (!newest_fit || compare_versions(v.cuda, newest_fit->cuda) < 0))
      newest_fit = v;
  if (best) {
    bool minor_compat = d.driver_max_cuda && compare_versions(best->cuda, *d.driver_max_cuda) > 0;
    r.push_back({"PyTorch " + best->torch + " " + best->variant + " for driver " + d.driver_version.value_or("?") +
                     " (CUDA up to " + d.driver_max_cuda.value_or("?") +
                     (minor_compat ? "; CUDA " + best->cuda + " runs through minor-version compatibility" : "") + ")" +
                     (d.gpu_archs.empty() ? "" : ", with kernels for every GPU here"),
                 {"dlready setup ~/venvs/torch", pip_install_command(f, d),
                  "uv pip install torch torchvision --torch-backend=" + best->variant,
                  "conda: PyTorch publishes no conda packages after 2.5; use the pip line inside the conda env",
                  d.machine == "aarch64" ? "LibTorch: the wheel's torch/lib and torch/share/cmake (no aarch64 LibTorch zip)"
                                         : "LibTorch: https://download.pytorch.org/libtorch/" + best->variant +
                                               "/libtorch-shared-with-deps-latest.zip",
                  "container: an NGC image nvcr.io/nvidia/pytorch:<YY.MM>-py3 whose CUDA is <= " +
                      d.driver_max_cuda.value_or("your driver's CUDA") + " (NGC support matrix)"}});
  }
  const auto min_for_newest = newest_fit ? min_driver_for_cuda(newest_fit->cuda) : std::nullopt;
  const bool driver_runs_newest =
      min_for_newest && d.driver_version && compare_versions(*d.driver_version, *min_for_newest) >= 0;
  if (newest_fit && (!best || best->torch != newest_fit->torch) && driver_runs_newest) {
    // setup chose the release before it for a native build; the newest runs too, through CUDA's
    // minor-version compatibility (no JIT of newer PTX, none of a newer driver's features).
    r.push_back({"PyTorch " + newest_fit->torch + " " + newest_fit->variant + " runs on driver " + *d.driver_version +
                     " only through minor-version compatibility (CUDA " + newest_fit->cuda + " on a driver for CUDA " +
                     d.driver_max_cuda.value_or("?") + ")",
                 {"pip install torch torchvision --index-url https://download.pytorch.org/whl/" + newest_fit->variant}});
  } else if (newest_fit && (!best || best->torch != newest_fit->torch)) {
    if (auto min = min_for_newest)
      r.push_back({"Upgrade the NVIDIA driver to >= " + *min + " to run PyTorch " + newest_fit->torch + " (" +
                       newest_fit->variant + ")",
                   {f.os.id.value_or("") == "ubuntu" ? "sudo ubuntu-drivers install" : "driver: install " + *min + " or newer",
                    "then: pip install torch torchvision --index-url https://download.pytorch.org/whl/" + newest_fit->variant}});
  }
  if (!best && !newest_fit)
    r.push_back({"No PyTorch CUDA build has kernels for this GPU", {"train on the CPU: dlready train --device cpu"}});
  return r;
}

}  // namespace dlready
