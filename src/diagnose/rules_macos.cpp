// The macOS rules: why a Mac's PyTorch has no MPS (Apple's GPU through Metal), read from the macOS
// source's facts (SystemVersion.plist, sysctl, the Mach-O files of Python and torch). CUDA does not
// exist on macOS; the verdict speaks of MPS.
#include <algorithm>

#include "core/text.hpp"
#include "diagnose/catalogue.hpp"
#include "diagnose/rules.hpp"

namespace dlready {
namespace {

// The macOS that torch's MPS gate needs (MPSDevice checks that MPSGraph answers a selector new in
// that release): aten/src/ATen/mps/MPSDevice.mm; 13.0 from 2.5 (pytorch PR #133141), 14.0 from 2.9
// (PR #162921: "in 2.9+ MPS is only supported on MacOS Sonoma+").
struct MpsGate {
  const char* first_torch;
  const char* macos;
};
constexpr MpsGate kMpsGates[] = {{"2.9", "14.0"}, {"2.5", "13.0"}, {"1.12", "12.3"}};

std::string mps_needs(const std::string& torch) {
  for (const auto& g : kMpsGates)
    if (compare_versions(torch, g.first_torch) >= 0) return g.macos;
  return "12.3";
}

// The macOS version the rules compare with: the plist's, unless the compatibility shim answered.
std::optional<std::string> macos_version(const MacosFacts& m) {
  if (!m.version_shimmed) return m.product_version;
  if (m.darwin_release)
    if (auto major = macos_major_from_darwin(*m.darwin_release)) return std::to_string(*major) + ".0";
  return std::nullopt;
}

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
  auto os = macos_version(m);
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
    std::string needs = mps_needs(v);
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
    x.evidence = {"this Mac is Apple Silicon (hw.optional.arm64 = 1)"};
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

}  // namespace

void rules_macos(const Facts& f, const Derived&, std::vector<Finding>& out) {
  if (!f.macos) return;
  const auto& m = *f.macos;
  cpu_rules(f, m, out);
  os_rules(f, m, out);
  mps_rules(m, out);
  bool any_torch = false;
  for (const auto& e : f.python.envs) any_torch |= !e.torch.empty();
  if (!any_torch) {
    auto x = make_finding("torch-not-installed");
    x.evidence = {"no torch in " + std::to_string(f.python.envs.size()) + " Python environment(s)"};
    x.fix = {"python3 -m venv ~/.venvs/torch && ~/.venvs/torch/bin/pip install torch torchvision"};
    out.push_back(x);
  }
}

Verdict macos_verdict(const Facts& f, const Derived&, const std::vector<Finding>& findings) {
  Verdict v;
  v.cuda_usable = false;  // no CUDA on macOS: PyTorch's GPU there is MPS
  std::vector<std::string> errors;
  for (const auto& x : findings)
    if (x.severity >= Severity::warning && x.id != "torch-not-installed") errors.push_back(x.title + " [" + x.id + "]");
  bool mps = false;
  for (const auto& e : f.python.envs)
    for (const auto& t : e.torch) {
      TorchVerdict tv{t.site_packages, t.version.value_or("unknown"), std::nullopt, false, ""};
      tv.mps_available = errors.empty();
      tv.reason = errors.empty() ? "MPS ready" : "CPU only: " + join(errors, "; ");
      mps |= errors.empty();
      v.torch.push_back(tv);
    }
  const std::string ask = "python -c \"import torch; print(torch.backends.mps.is_available())\" confirms it.";
  if (v.torch.empty()) v.summary = "No PyTorch found; CUDA does not exist on macOS (PyTorch's GPU here is MPS).";
  else if (mps) v.summary = "MPS ready: PyTorch can use this Mac's GPU (device=\"mps\"; CUDA does not exist on macOS). " + ask;
  else v.summary = "CPU only — MPS is not usable: " + join(errors, "; ") + ".";
  return v;
}

}  // namespace dlready
