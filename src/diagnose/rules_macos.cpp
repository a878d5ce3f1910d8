// The macOS rules: why a Mac's PyTorch has no MPS (Apple's GPU through Metal), read from the macOS
// source's facts (SystemVersion.plist, sysctl, the Mach-O files of Python and torch). CUDA does not
// exist on macOS; the verdict speaks of MPS.
#include <algorithm>
#include <cstdlib>
#include <set>

#include "core/text.hpp"
#include "diagnose/catalogue.hpp"
#include "compat/mac_wheels.hpp"
#include "diagnose/rules.hpp"

namespace dlready {
namespace {

std::string torch_version(const Facts& f, const std::string& site_packages) {
  for (const auto& e : f.python.envs)
    for (const auto& t : e.torch)
      if (t.site_packages == site_packages) return t.version.value_or("?");
  return "?";
}

// The pin that still has MPS on this macOS.
std::string pin_for(const std::string& macos) {
  if (compare_versions(macos, "13.0") >= 0) return "pip install \"torch<2.9\"";
  if (compare_versions(macos, "12.3") >= 0) return "pip install \"torch<2.5\"";
  return "below macOS 12.3 no torch has MPS: train on the CPU (device=\"cpu\")";
}

void os_rules(const Facts& f, const MacosFacts& m, std::vector<Finding>& out) {
  auto os = effective_macos_version(m);
  for (const auto& c : m.torch) {
    std::string v = torch_version(f, c.site_packages);
    if (os && c.minos && compare_versions(*c.minos, *os) > 0) {
      auto x = make_finding("mac-torch-needs-newer-macos");
      x.evidence = {c.library.value_or(c.site_packages) + " is built for macOS " + *c.minos + " and later (LC_BUILD_VERSION)",
                    "this Mac runs macOS " + *os};
      x.fix = {"pip install --force-reinstall \"torch<=2.11\" (the last wheels built for macOS 11)",
               "or upgrade macOS: System Settings → General → Software Update"};
      out.push_back(x);
      continue;
    }
    if (!os || c.mps_built == false || v == "?") continue;
    std::string needs = mps_needs_macos(v);
    if (compare_versions(*os, needs) >= 0) continue;
    auto x = make_finding("macos-too-old-for-mps");
    x.evidence = {"torch " + v + " in " + c.site_packages + ": its MPS needs macOS " + needs + " or newer",
                  "this Mac runs macOS " + *os + (m.version_shimmed ? " (from the Darwin release; the plist is shimmed)" : "")};
    x.fix = {"upgrade macOS to " + needs + " or newer: System Settings → General → Software Update",
             "or keep this macOS and pin a torch whose MPS runs here: " + pin_for(*os)};
    out.push_back(x);
  }
}

void cpu_rules(const Facts& f, const MacosFacts& m, std::vector<Finding>& out) {
  if (m.apple_silicon == false) {
    auto x = make_finding("mac-intel-no-new-torch");
    x.evidence = {"hw.optional.arm64 is 0: an Intel Mac" + (m.cpu_brand ? " (" + *m.cpu_brand + ")" : std::string())};
    for (const auto& e : f.python.envs)
      for (const auto& t : e.torch) x.evidence.push_back("torch " + t.version.value_or("?") + " in " + t.site_packages);
    x.fix = {"pip install \"torch==2.2.2\" (the last macOS x86_64 wheels, Python 3.8 to 3.12)",
             "for newer PyTorch: an Apple Silicon Mac, or Linux with a GPU (Google Colab, a cloud machine)"};
    out.push_back(x);
    return;
  }
  if (m.apple_silicon != true) return;
  for (const auto& p : m.pythons) {
    bool intel_only = !p.cpus.empty() && std::find(p.cpus.begin(), p.cpus.end(), "arm64") == p.cpus.end();
    bool conda_intel = p.conda_subdir == std::string("osx-64");
    if (!intel_only && !conda_intel) continue;
    auto x = make_finding("mac-python-under-rosetta");
    x.evidence = {"this Mac is Apple Silicon (" + (m.cpu_brand ? *m.cpu_brand : std::string("hw.optional.arm64 = 1")) + ")"};
    if (intel_only) x.evidence.push_back(p.interpreter.value_or(p.prefix) + " is built for " + join(p.cpus, ", ") + " only");
    if (conda_intel) x.evidence.push_back(p.prefix + "/conda-meta: subdir osx-64 (an Intel conda)");
    x.fix = {"install an arm64 Python: brew install python@3.12 (Homebrew in /opt/homebrew), or arm64 Miniforge",
             "conda: CONDA_SUBDIR=osx-arm64 conda create -n torch python=3.12, then conda activate torch",
             "then: python -m pip install torch torchvision"};
    out.push_back(x);
  }
  if (m.translated == true) {
    auto x = make_finding("mac-python-under-rosetta");
    x.evidence = {"sysctl.proc_translated is 1: this shell runs under Rosetta, so what it starts is x86_64 too"};
    x.fix = {"open a native terminal (Terminal's Get Info: untick 'Open using Rosetta'), or run: arch -arm64 zsh"};
    out.push_back(x);
  }
}

void mps_rules(const MacosFacts& m, std::vector<Finding>& out) {
  if (m.virtual_machine == true) {
    auto x = make_finding("mac-virtual-machine-no-mps");
    x.evidence = {"kern.hv_vmm_present = 1, or a virtual model: " + m.model.value_or("?") + ", " + m.cpu_brand.value_or("?")};
    x.fix = {"run on the Mac itself (bare metal), or train on the CPU here: device=\"cpu\""};
    out.push_back(x);
  }
  for (const auto& c : m.torch) {
    if (c.mps_built != false) continue;
    auto x = make_finding("torch-built-without-mps");
    x.evidence = {*c.library + " does not link MetalPerformanceShadersGraph: torch.backends.mps.is_built() is False"};
    x.fix = {"pip install --force-reinstall torch (PyPI's macOS wheels are built with MPS)"};
    out.push_back(x);
  }
}

const PythonEnv* env_of(const Facts& f, const std::string& prefix) {
  for (const auto& e : f.python.envs)
    if (e.prefix == prefix) return &e;
  return nullptr;
}

// A Python pip would install torch into: one without torch that is active, or any when no
// environment has torch.
std::vector<const MacPython*> pythons_to_install_into(const Facts& f, const MacosFacts& m) {
  bool any_torch = false;
  for (const auto& e : f.python.envs) any_torch |= !e.torch.empty();
  std::vector<const MacPython*> out;
  for (const auto& p : m.pythons) {
    const PythonEnv* e = env_of(f, p.prefix);
    if (e && e->torch.empty() && (e->active || !any_torch)) out.push_back(&p);
  }
  return out;
}

// The CPU pip sees: the interpreter's own when it has one slice (an x86_64 Python under Rosetta
// gets x86_64 wheels), else the Mac's.
std::string pip_cpu(const MacosFacts& m, const MacPython& p) {
  if (p.cpus.size() == 1) return p.cpus[0];
  return m.apple_silicon == false ? "x86_64" : "arm64";
}

void install_rules(const Facts& f, const MacosFacts& m, std::vector<Finding>& out) {
  auto os = effective_macos_version(m);
  for (const MacPython* p : pythons_to_install_into(f, m)) {
    const PythonEnv* e = env_of(f, p->prefix);
    if (os && e->python_version && (m.apple_silicon || !p->cpus.empty()) &&
        !newest_mac_release(pip_cpu(m, *p), *os, *e->python_version, false)) {
      auto x = make_finding("mac-python-no-torch-wheels");
      std::string cpu = pip_cpu(m, *p);
      x.evidence = {p->interpreter.value_or(p->prefix) + " is Python " + *e->python_version + " (" + cpu + ")",
                    cpu == "x86_64" ? "PyPI's macOS x86_64 wheels stop at torch 2.2.2, for Python 3.8 to 3.12"
                                    : "no torch release has macOS arm64 wheels for Python " + *e->python_version +
                                          " on macOS " + *os};
      x.fix = {cpu == "x86_64" ? "install Python 3.12 (brew install python@3.12, or uv python install 3.12), then: "
                                 "python3.12 -m venv ~/.venvs/torch && ~/.venvs/torch/bin/pip install \"torch==2.2.2\""
                               : "install a Python torch has wheels for: uv python install 3.12 (or brew install python@3.12)"};
      out.push_back(x);
    }
    if (p->externally_managed) {
      auto x = make_finding("mac-pip-externally-managed");
      x.evidence = {p->interpreter.value_or(p->prefix) + ": EXTERNALLY-MANAGED beside its standard library (PEP 668)",
                    "pip install torch there stops with error: externally-managed-environment"};
      std::string py = e->python_version ? "python" + *e->python_version : "python3";
      x.fix = {py + " -m venv ~/.venvs/torch && ~/.venvs/torch/bin/pip install torch torchvision",
               "then: source ~/.venvs/torch/bin/activate"};
      out.push_back(x);
    }
  }
  std::vector<std::string> cuda;
  for (const auto& i : m.pip_indexes)
    if (i.find("download.pytorch.org/whl/cu") != std::string::npos || i.find("download.pytorch.org/whl/rocm") != std::string::npos)
      cuda.push_back(i);
  if (!cuda.empty()) {
    auto x = make_finding("mac-cuda-index-configured");
    x.evidence = cuda;
    x.fix = {"remove that index (unset the variable, or delete the line from the pip.conf named), then: "
             "python -m pip install torch torchvision (PyPI's macOS wheels; CUDA does not exist on macOS)"};
    out.push_back(x);
  }
}

void openmp_rules(const MacosFacts& m, std::vector<Finding>& out) {
  for (const auto& c : m.torch) {
    if (c.openmp.size() < 2) continue;
    auto x = make_finding("mac-two-openmp-runtimes");
    x.evidence = {std::to_string(c.openmp.size()) + " OpenMP runtimes beside torch in " + c.site_packages + ":"};
    for (const auto& o : c.openmp) x.evidence.push_back(o);
    x.fix = {"keep one OpenMP: install torch and scikit-learn from the same source (all pip, or all conda-forge)",
             "conda: conda install -c conda-forge llvm-openmp and remove the mkl/intel-openmp packages",
             "KMP_DUPLICATE_LIB_OK=TRUE only hides the error (the runtime calls it unsafe)"};
    out.push_back(x);
  }
}

// A plain decimal number ("1.7", "0", ".5"), nothing after it; nullopt otherwise.
std::optional<double> plain_number(const std::string& text) {
  if (text.empty() || text.size() > 32 || text.find_first_not_of("0123456789.") != std::string::npos) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return v;
}

// PYTORCH_MPS_HIGH_WATERMARK_RATIO: torch's MPSAllocator takes 0 to 2 (default 1.7); 0 means no
// limit at all (PyTorch's mps_environment_variables.md: "may cause system failure").
void variable_rules(const Facts& f, std::vector<Finding>& out) {
  for (const char* var : {"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "PYTORCH_MPS_LOW_WATERMARK_RATIO"}) {
    auto v = f.env.get(var);
    if (!v) continue;
    auto ratio = plain_number(*v);
    if (!ratio || *ratio < 0 || *ratio > 2) {
      auto x = make_finding("mps-watermark-invalid");
      x.evidence = {std::string(var) + "=" + printable(*v, 80) + ": torch takes a number from 0 to 2"};
      x.fix = {std::string("unset ") + var + " (torch's defaults: high 1.7, low 1.4 on Apple Silicon)"};
      out.push_back(x);
    } else if (*ratio == 0 && std::string(var) == "PYTORCH_MPS_HIGH_WATERMARK_RATIO") {
      auto x = make_finding("mps-memory-limit-off");
      x.evidence = {std::string(var) + "=" + *v + ": MPS may take all of this Mac's memory"};
      x.fix = {"unset PYTORCH_MPS_HIGH_WATERMARK_RATIO (default 1.7), or give a limit such as 1.0; "
               "for 'MPS backend out of memory' lower the batch size"};
      out.push_back(x);
    }
  }
  if (auto v = f.env.get("PYTORCH_ENABLE_MPS_FALLBACK"); v && *v == "1") {
    auto x = make_finding("mps-cpu-fallback-on");
    x.evidence = {"PYTORCH_ENABLE_MPS_FALLBACK=1"};
    x.fix = {"to see which operations run on the CPU: unset PYTORCH_ENABLE_MPS_FALLBACK and read the "
             "NotImplementedError (then keep it set only for those)"};
    out.push_back(x);
  }
}

// The live Metal probe (or a capture's record of it): no device torch would take (not low-power,
// in the Mac2 family), or an MPSGraph without the gate the installed torch tests.
void metal_rules(const MacosFacts& m, std::vector<Finding>& out) {
  if (!m.metal || m.metal->error || m.virtual_machine == true) return;
  bool usable = false;
  for (const auto& d : m.metal->devices) usable |= !d.low_power && d.mac2;
  if (usable) return;
  auto x = make_finding("mac-no-metal-device-for-mps");
  x.evidence = {m.metal->devices.empty() ? "MTLCopyAllDevices lists no Metal device" : "Metal devices, none usable by MPS:"};
  for (const auto& d : m.metal->devices)
    x.evidence.push_back(d.name + (d.low_power ? " (low power: torch skips it)" : "") + (d.mac2 ? "" : " (not in the Mac2 GPU family)"));
  x.fix = {"run outside any sandbox or remote session that hides the GPU, on the Mac itself; else train on the CPU: device=\"cpu\""};
  out.push_back(x);
}

// The Mac Python read for an environment's prefix; nullptr when none was.
const MacPython* mac_python_of(const std::vector<MacPython>& pythons, const std::string& prefix) {
  for (const auto& p : pythons)
    if (p.prefix == prefix) return &p;
  return nullptr;
}

}  // namespace

void rules_macos(const Facts& f, const Derived&, std::vector<Finding>& out) {
  if (!f.macos) return;
  const auto& m = *f.macos;
  cpu_rules(f, m, out);
  os_rules(f, m, out);
  mps_rules(m, out);
  metal_rules(m, out);
  install_rules(f, m, out);
  openmp_rules(m, out);
  variable_rules(f, out);
}

Verdict macos_verdict(const Facts& f, const Derived&, const std::vector<Finding>& findings) {
  Verdict v;
  v.cuda_usable = false;  // no CUDA on macOS: PyTorch's GPU there is MPS
  std::vector<std::string> errors;
  // Only what keeps MPS from this torch: an OpenMP clash or a variable is a finding, not "no MPS".
  static const std::set<std::string> kBlocksMps = {
      "macos-too-old-for-mps", "mac-torch-needs-newer-macos", "mac-python-under-rosetta", "mac-intel-no-new-torch",
      "mac-virtual-machine-no-mps", "torch-built-without-mps", "mac-no-metal-device-for-mps"};
  for (const auto& x : findings)
    if (kBlocksMps.count(x.id)) errors.push_back(x.title + " [" + x.id + "]");
  bool mps = false, unsure = false;
  for (const auto& e : f.python.envs)
    for (const auto& t : e.torch) {
      TorchVerdict tv{t.site_packages, t.version.value_or("unknown"), std::nullopt, false, ""};
      tv.mps_available = errors.empty();
      tv.reason = errors.empty() ? "MPS ready" : "CPU only: " + join(errors, "; ");
      // An x86_64-only Python on a Mac whose processor is not known (a capture without sysctl's
      // answers): under Rosetta it has no MPS, so MPS is not claimed.
      const MacPython* py = f.macos ? mac_python_of(f.macos->pythons, e.prefix) : nullptr;
      if (py && errors.empty() && f.macos->apple_silicon != true && !py->cpus.empty() &&
          std::find(py->cpus.begin(), py->cpus.end(), "arm64") == py->cpus.end()) {
        tv.mps_available.reset();
        tv.reason = "MPS not known: " + py->interpreter.value_or(py->prefix) + " is x86_64 only and the processor is not known "
                    "(on Apple Silicon it runs under Rosetta, without MPS)";
        unsure = true;
      }
      mps |= tv.mps_available == true;
      v.torch.push_back(tv);
    }
  const std::string ask = "python -c \"import torch; print(torch.backends.mps.is_available())\" confirms it.";
  if (v.torch.empty()) v.summary = "No PyTorch found; CUDA does not exist on macOS (PyTorch's GPU here is MPS).";
  else if (unsure && !mps)
    v.summary = "MPS not known: an x86_64 Python on a Mac whose processor is not known (sysctl was not read). " + ask;
  else if (mps) v.summary = "MPS ready: PyTorch can use this Mac's GPU (device=\"mps\"; CUDA does not exist on macOS). " + ask;
  else v.summary = "CPU only — MPS is not usable: " + join(errors, "; ") + ".";
  return v;
}

}  // namespace dlready
