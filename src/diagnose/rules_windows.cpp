// The doctor's rules on Windows: the same finding where the fault is the same (no NVIDIA GPU),
// Windows' own where its evidence and fix are (nvcuda.dll in System32).
#include "core/text.hpp"
#include "diagnose/catalogue.hpp"
#include "diagnose/rules.hpp"

namespace dlready {
namespace {

std::string adapter_line(const PciFunction& a) {
  return a.name.value_or("[" + a.vendor_id + ":" + a.device_id + "]") + " (" + a.address +
         (a.driver ? ", driver " + *a.driver : "") + ")";
}

void presence_rule(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  if (d.gpu_evidence) return;
  auto x = make_finding("no-nvidia-gpu");
  x.evidence.push_back(f.pci.sysfs_readable ? "no display adapter of vendor 10de (NVIDIA) among those Windows lists "
                                              "(Device Manager, Display adapters)"
                                            : "Windows lists no display adapter with a PCI id");
  for (const auto& o : f.pci.other_gpus) x.evidence.push_back("other display adapter: " + adapter_line(o));
  x.fix = {"train on the CPU (in WSL2: dlready train --device cpu)",
           "or move to a machine with an NVIDIA GPU and run dlready doctor there"};
  out.push_back(x);
}

void driver_rule(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  if (d.pci_gpus == 0 || f.libcuda.found()) return;
  auto x = make_finding("windows-nvcuda-missing");
  for (const auto& g : f.pci.nvidia) x.evidence.push_back("NVIDIA display adapter: " + adapter_line(g));
  x.evidence.push_back("nvcuda.dll is not in " + (f.libcuda.searched.empty() ? std::string("System32")
                                                                             : f.libcuda.searched.front()));
  x.fix = {"install NVIDIA's driver for this GPU (https://www.nvidia.com/Download/index.aspx: Game Ready or Studio), "
           "then restart Windows",
           "check Device Manager → Display adapters: the GPU must show its NVIDIA name, not Microsoft Basic Display "
           "Adapter"};
  out.push_back(x);
}

// What nvcuda.dll answered in its child process: a hang, a crash, or cuInit's refusal.
void driver_answer_rule(const Facts& f, std::vector<Finding>& out) {
  const auto& drv = f.driver;
  const std::vector<std::string> reinstall = {
      "reinstall NVIDIA's driver for this GPU (https://www.nvidia.com/Download/index.aspx, with 'Perform a clean "
      "installation'), then restart Windows",
      "Event Viewer → Windows Logs → System: errors from nvlddmkm name what the driver hit"};
  std::string dll = drv.library.value_or("nvcuda.dll");
  if (drv.status == ProbeStatus::timeout || drv.status == ProbeStatus::crashed) {
    auto x = make_finding(drv.status == ProbeStatus::timeout ? "driver-probe-hang" : "driver-probe-crash");
    x.evidence.push_back(dll + ": " + drv.detail + " (in a child process of the doctor, which was ended)");
    x.fix = reinstall;
    out.push_back(x);
  } else if (drv.status == ProbeStatus::ok && drv.init_result && *drv.init_result != 0) {
    auto x = make_finding("cuda-init-failed");
    x.evidence.push_back("cuInit returned " + std::to_string(*drv.init_result) + " " + drv.init_error_name.value_or(""));
    x.fix = reinstall;
    out.push_back(x);
  }
}

// Which PyTorch `python` imports (the active environment's, else the first found) and whether it
// can use the GPU at all; the same findings as on Linux, with pip lines that work in PowerShell.
void torch_rules(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  const TorchInstall* primary = primary_torch(f);
  if (!primary) {
    auto x = make_finding("torch-not-installed");
    std::vector<std::string> prefixes;
    for (const auto& e : f.python.envs) prefixes.push_back(e.prefix);
    x.evidence.push_back(f.python.envs.empty() ? "no Python environment found (py launcher's registry, conda, venvs, "
                                                 "VIRTUAL_ENV/CONDA_PREFIX)"
                                               : "no torch in " + join(prefixes, ", "));
    x.fix = {pip_install_command(f, d)};
    out.push_back(x);
  } else if (!primary->cuda && d.gpu_evidence) {
    auto x = make_finding("torch-cpu-only");
    x.evidence.push_back("torch " + primary->version.value_or("?") + " in " + primary->site_packages +
                         ": torch.version.cuda is None");
    x.fix = {"pip uninstall -y torch torchvision torchaudio", pip_install_command(f, d)};
    out.push_back(x);
  }
}

// A CUDA build of PyTorch needs a driver at least as new as its CUDA's floor on Windows.
void driver_age_rule(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  const TorchInstall* primary = primary_torch(f);
  if (!primary || !primary->cuda || !d.driver_version) return;
  auto need = min_windows_driver_for_cuda(*primary->cuda);
  if (!need || compare_versions(*d.driver_version, *need) >= 0) return;
  auto x = make_finding("driver-too-old");
  x.evidence.push_back("NVIDIA driver " + *d.driver_version + " (the display adapter's)");
  x.evidence.push_back("torch " + primary->version.value_or("?") + " in " + primary->site_packages + " is built for CUDA " +
                       *primary->cuda + ", which needs a Windows driver >= " + *need);
  x.fix = {"update NVIDIA's driver to >= " + *need + " (https://www.nvidia.com/Download/index.aspx), then restart Windows",
           "or install the PyTorch build for this driver: " + pip_install_command(f, d)};
  out.push_back(x);
}

// What breaks pip and Python on a fresh Windows: 260-character paths, and the Store's stub first
// on PATH.
void settings_rules(const Facts& f, std::vector<Finding>& out) {
  if (!f.windows) return;
  const auto& w = *f.windows;
  if (w.long_paths_enabled == false) {
    auto x = make_finding("windows-long-paths-disabled");
    x.evidence.push_back("HKLM\\SYSTEM\\CurrentControlSet\\Control\\FileSystem LongPathsEnabled is 0 or not set");
    x.fix = {"in PowerShell as administrator: New-ItemProperty -Path "
             "\"HKLM:\\SYSTEM\\CurrentControlSet\\Control\\FileSystem\" -Name LongPathsEnabled -Value 1 -PropertyType DWORD "
             "-Force, then open a new terminal"};
    out.push_back(x);
  }
  if (!w.python_on_path.empty() && w.store_stub_dir &&
      starts_with(to_lower(w.python_on_path.front()), to_lower(*w.store_stub_dir + "\\"))) {
    auto x = make_finding("windows-python-store-stub");
    x.evidence.push_back("the first python.exe on PATH is " + w.python_on_path.front() +
                         ", the Microsoft Store's App Execution Alias");
    for (size_t i = 1; i < w.python_on_path.size(); ++i)
      x.evidence.push_back("a real one later on PATH: " + w.python_on_path[i]);
    for (const auto& e : f.python.envs)
      if (e.kind == "system") x.evidence.push_back("a Python the py launcher knows: " + e.prefix);
    x.fix = {"Settings → Apps → Advanced app settings → App execution aliases: turn off python.exe and python3.exe",
             "or run Python through the py launcher: py -m pip install torch",
             "or install Python from python.org with 'Add python.exe to PATH' ticked"};
    out.push_back(x);
  }
}

std::string cuda_version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

}  // namespace

Verdict windows_verdict(const Facts& f, const Derived& d, const std::vector<Finding>& findings) {
  Verdict v;
  std::vector<std::string> errors;
  for (const auto& x : findings)
    if (x.severity == Severity::error) errors.push_back(x.title + " [" + x.id + "]");
  const auto& drv = f.driver;
  const bool driver_ok = drv.status == ProbeStatus::ok && drv.init_result == 0 && drv.device_count.value_or(0) > 0;
  // Each PyTorch found, and whether torch.cuda.is_available() would say True (the DLLs it loads
  // are not read yet: the sentence says how to confirm).
  for (const auto& e : f.python.envs)
    for (const auto& t : e.torch) {
      TorchVerdict tv{t.site_packages, t.version.value_or("unknown"), t.cuda, false, ""};
      tv.cuda_available = t.cuda && driver_ok && errors.empty();
      tv.reason = !t.cuda ? "CPU-only build (torch.version.cuda is None)"
                  : tv.cuda_available ? "CUDA " + *t.cuda + " build, the driver answers"
                                      : "the driver does not answer";
      v.torch.push_back(tv);
    }
  v.cpu_training_ok = !v.torch.empty();
  const std::string ask_torch = "python -c \"import torch; print(torch.cuda.is_available())\" confirms it.";
  if (!errors.empty()) {
    v.cuda_usable = false;
    v.summary = "CUDA is not usable: " + join(errors, "; ") + ".";
  } else if (driver_ok) {
    v.cuda_usable = true;
    v.summary = "CUDA is usable: " + std::to_string(*drv.device_count) + " GPU(s), driver " +
                d.driver_version.value_or("?") +
                (drv.driver_version ? " (CUDA " + cuda_version_text(*drv.driver_version) + ")" : "") + ". " + ask_torch;
  } else {
    v.summary = "CUDA could not be checked (the driver probe did not run). " + ask_torch;
  }
  return v;
}

void rules_windows(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  presence_rule(f, d, out);
  driver_rule(f, d, out);
  driver_answer_rule(f, out);
  torch_rules(f, d, out);
  driver_age_rule(f, d, out);
  settings_rules(f, out);
  toolkit_rules(f, out);
}

}  // namespace dlready
