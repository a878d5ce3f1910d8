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
  // nvcuda.dll's and nvml.dll's children alike: a hang or a crash ended the child, not the doctor.
  const std::pair<const ProbeStatus*, std::string> children[] = {
      {&drv.status, drv.library.value_or("nvcuda.dll") + ": " + drv.detail},
      {&f.nvml.status, f.nvml.library.value_or("nvml.dll") + ": " + f.nvml.detail}};
  for (const auto& [status, what] : children)
    if (*status == ProbeStatus::timeout || *status == ProbeStatus::crashed) {
      auto x = make_finding(*status == ProbeStatus::timeout ? "driver-probe-hang" : "driver-probe-crash");
      x.evidence.push_back(what + " (in a child process of the doctor, which was ended)");
      x.fix = reinstall;
      out.push_back(x);
    }
  if (drv.status == ProbeStatus::ok && drv.init_result && *drv.init_result != 0) {
    auto x = make_finding("cuda-init-failed");
    x.evidence.push_back("cuInit returned " + std::to_string(*drv.init_result) + " " + drv.init_error_name.value_or(""));
    x.fix = reinstall;
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

const DxgiAdapter* dxgi_adapter(const WindowsFacts& w, const std::optional<std::string>& luid) {
  for (const auto& a : w.dxgi_adapters)
    if (luid && a.luid == *luid) return &a;
  return nullptr;
}

// Windows' watchdog on a WDDM GPU: a piece of GPU work over TdrDelay seconds resets the GPU.
void watchdog_rule(const Facts& f, std::vector<Finding>& out) {
  if (!f.windows || f.pci.nvidia.empty() || f.windows->tdr_level == 0) return;
  const int delay = f.windows->tdr_delay.value_or(2);
  if (delay >= 10) return;
  std::vector<std::string> wddm;
  bool model_known = false;
  for (const auto& g : f.nvml.devices) {
    model_known = model_known || g.driver_model.has_value();
    if (g.driver_model == 0) wddm.push_back("GPU " + std::to_string(g.index) + " " + g.name.value_or("") + " runs under WDDM");
  }
  if (model_known && wddm.empty()) return;  // TCC or MCDM: no display watchdog
  auto x = make_finding("windows-gpu-watchdog");
  x.evidence = wddm;
  if (!model_known)
    x.evidence.push_back(f.pci.nvidia.front().name.value_or("the NVIDIA GPU") +
                         ": its driver model could not be read (NVML did not answer); GeForce GPUs always run under WDDM");
  x.evidence.push_back(f.windows->tdr_delay ? "HKLM\\SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers TdrDelay is " +
                                                  std::to_string(delay) + " s"
                                            : "TdrDelay is not set: Windows' default of 2 s applies");
  x.fix = {"for long GPU work, raise the limit (PowerShell as administrator): New-ItemProperty -Path "
           "'HKLM:\\SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers' -Name TdrDelay -Value 60 -PropertyType DWORD "
           "-Force, then restart Windows",
           "or keep each step short: a smaller batch or model per step",
           "on a data-center or professional GPU that drives no display: nvidia-smi -i 0 -dm 1 (TCC; MCDM is 2) in a "
           "terminal opened as administrator, then restart Windows"};
  out.push_back(x);
}

// A python.exe set to "Power saving" where there is an NVIDIA GPU and another to choose from.
void gpu_preference_rule(const Facts& f, std::vector<Finding>& out) {
  if (!f.windows || f.pci.nvidia.empty()) return;
  const auto& w = *f.windows;
  bool other_hardware = !f.pci.other_gpus.empty();
  for (const auto& a : w.dxgi_adapters) other_hardware = other_hardware || (!a.software && a.vendor_id != "10de");
  std::vector<std::string> power_saving;
  for (const auto& [program, choice] : w.python_gpu_preferences)
    if (choice == "power-saving") power_saving.push_back(program);
  if (!other_hardware || power_saving.empty()) return;
  auto x = make_finding("windows-python-on-power-saving-gpu");
  for (const auto& p : power_saving)
    x.evidence.push_back("HKCU\\Software\\Microsoft\\DirectX\\UserGpuPreferences: " + p + " is set to Power saving "
                         "(GpuPreference=1)");
  if (const auto* a = dxgi_adapter(w, w.dxgi_minimum_power)) x.evidence.push_back("Windows' power-saving GPU: " + a->name);
  const auto* fast = dxgi_adapter(w, w.dxgi_high_performance);
  std::string nvidia = fast ? fast->name : f.pci.nvidia.front().name.value_or("the NVIDIA GPU");
  if (fast) x.evidence.push_back("Windows' high-performance GPU: " + fast->name);
  x.fix = {"Settings → System → Display → Graphics: " + power_saving.front() + " → Options → High performance (" +
               nvidia + ") → Save",
           "or in PowerShell: Set-ItemProperty -Path 'HKCU:\\Software\\Microsoft\\DirectX\\UserGpuPreferences' -Name '" +
               power_saving.front() + "' -Value 'GpuPreference=2;'",
           "NVIDIA Control Panel → Manage 3D settings → Program Settings → python.exe → High-performance NVIDIA processor"};
  out.push_back(x);
}

// The Visual C++ 2015-2022 runtime's DLLs (the redistributable installs them into System32).
bool vc_runtime_dll(const std::string& name) {
  std::string n = to_lower(name);
  return starts_with(n, "vcruntime140") || starts_with(n, "msvcp140") || n == "concrt140.dll" || n == "vcomp140.dll";
}

// The CUDA DLLs torch's CUDA wheels carry in torch\lib.
bool cuda_dll(const std::string& name) {
  std::string n = to_lower(name);
  for (const char* p : {"cudart64", "cublas", "cudnn", "cufft", "curand", "cusparse", "cusolver", "nvrtc", "nvjitlink",
                        "nvtoolsext", "cupti", "nccl", "caffe2_nvrtc", "zlibwapi"})
    if (starts_with(n, p)) return true;
  return false;
}

// The same torch again, whole: its version and the index of its build (2.5.1+cu124 -> cu124).
std::string reinstall_torch_command(const TorchInstall* t) {
  std::string version = t && t->version ? *t->version : "";
  auto plus = version.find('+');
  std::string variant = plus == std::string::npos ? (t && t->cuda ? "" : "cpu") : version.substr(plus + 1);
  return "pip install --force-reinstall --no-cache-dir " +
         (version.empty() ? std::string("torch") : "torch==" + version.substr(0, plus)) +
         (variant.empty() ? "" : " --index-url https://download.pytorch.org/whl/" + variant);
}

const TorchInstall* torch_of(const Facts& f, const TorchDllCheck& check) {
  for (const auto& e : f.python.envs)
    for (const auto& t : e.torch)
      if (to_lower(t.site_packages + "\\torch\\lib") == to_lower(check.torch_lib)) return &t;
  return nullptr;
}

std::string missing_line(const MissingDll& m, const TorchDllCheck& check) {
  return m.name + ", imported by " + m.needed_by + ", is in none of the " + std::to_string(check.search_path.size()) +
         " folders Windows searches for torch's DLLs (torch\\lib, python.exe's folder, torch's added folders, "
         "System32, the Windows folder, PATH)";
}

std::string winerror_line(const MissingDll& m) {
  return "import torch fails: OSError: [WinError 126] The specified module could not be found. Error loading \"" +
         m.loading + "\" or one of its dependencies.";
}

// What to do about a missing DLL that is not the Visual C++ runtime.
std::vector<std::string> missing_dll_fix(const Facts& f, const Derived& d, const MissingDll& m, const TorchInstall* t) {
  std::string n = to_lower(m.name);
  if (n == "libomp140.x86_64.dll")
    return {"torch " + (t && t->version ? *t->version : std::string("?")) +
                "'s DLLs import LLVM's OpenMP runtime, which no redistributable installs (torch 2.4.0's Windows "
                "wheels did so by mistake: pytorch#131662): install another release: " + pip_install_command(f, d),
            "or copy libomp140.x86_64.dll from a Visual Studio 2022 install with the C++ workload into " +
                m.loading.substr(0, m.loading.find_last_of('\\'))};
  if (cuda_dll(m.name))
    return {"torch's CUDA wheels carry their CUDA DLLs in torch\\lib: this install is incomplete or mixed; "
            "install it again, whole: " + reinstall_torch_command(t)};
  return {"install torch again, whole: " + reinstall_torch_command(t),
          "if " + m.name + " is not torch's own, install the program or package that provides it, or put its "
          "folder on PATH"};
}

// Why `import torch` fails before any GPU question is asked: a DLL in no folder Windows searches
// (the file behind WinError 126, which names only the torch DLL), or a python.exe built for
// another processor than torch's DLLs.
void torch_dll_rules(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  if (!f.windows) return;
  for (const auto& check : f.windows->torch_dlls) {
    const TorchInstall* t = torch_of(f, check);
    if (check.python_machine && check.torch_machine && *check.python_machine != *check.torch_machine) {
      auto x = make_finding("windows-python-architecture-mismatch");
      x.evidence.push_back(check.python_exe.value_or("python.exe") + " is an " + *check.python_machine + " program");
      x.evidence.push_back("torch's DLLs in " + check.torch_lib + " are " + *check.torch_machine);
      x.fix = {"install the 64-bit (x64) Python from https://www.python.org/downloads/windows/ ('Windows installer "
               "(64-bit)')",
               "make the environment again with it (py -3 -m venv .venv) and install torch there: " +
                   pip_install_command(f, d)};
      out.push_back(x);
    }
    if (!check.unreadable.empty()) {
      auto x = make_finding("torch-library-damaged");
      x.evidence = check.unreadable;
      x.fix = {"install torch again, whole: " + reinstall_torch_command(t)};
      out.push_back(x);
    }
    std::vector<const MissingDll*> runtime, other;
    for (const auto& m : check.missing) (vc_runtime_dll(m.name) ? runtime : other).push_back(&m);
    if (!runtime.empty()) {
      auto x = make_finding("windows-vc-runtime-missing");
      for (const auto* m : runtime) x.evidence.push_back(missing_line(*m, check));
      x.evidence.push_back(winerror_line(*runtime.front()));
      x.fix = {"install the Visual C++ 2015-2022 Redistributable (x64): https://aka.ms/vs/17/release/vc_redist.x64.exe "
               "(or in PowerShell: winget install Microsoft.VCRedist.2015+.x64), then open a new terminal"};
      out.push_back(x);
    }
    for (const auto* m : other) {
      auto x = make_finding("windows-torch-dll-missing");
      x.evidence.push_back(missing_line(*m, check));
      x.evidence.push_back(winerror_line(*m));
      x.fix = missing_dll_fix(f, d, *m, t);
      out.push_back(x);
    }
  }
}

std::string cuda_version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

// Why `import torch` fails for this torch, in a few words; empty when nothing says it does.
std::optional<std::string> import_failure(const Facts& f, const TorchInstall& t) {
  if (!f.windows) return std::nullopt;
  for (const auto& check : f.windows->torch_dlls) {
    if (torch_of(f, check) != &t) continue;
    if (check.python_machine && check.torch_machine && *check.python_machine != *check.torch_machine)
      return "import torch fails: python.exe is " + *check.python_machine + ", torch's DLLs " + *check.torch_machine;
    if (!check.missing.empty()) return "import torch fails: " + check.missing.front().name + " is missing (WinError 126)";
    if (!check.unreadable.empty()) return "import torch fails: a DLL in torch\\lib is damaged";
  }
  return std::nullopt;
}

}  // namespace

Verdict windows_verdict(const Facts& f, const Derived& d, const std::vector<Finding>& findings) {
  Verdict v;
  std::vector<std::string> errors;
  for (const auto& x : findings)
    if (x.severity == Severity::error) errors.push_back(x.title + " [" + x.id + "]");
  const auto& drv = f.driver;
  const bool driver_ok = drv.status == ProbeStatus::ok && drv.init_result == 0 && drv.device_count.value_or(0) > 0;
  // Each PyTorch found, whether `import torch` loads its DLLs (torch\lib read as files) and whether
  // torch.cuda.is_available() would say True (the sentence says how to confirm).
  v.cpu_training_ok = false;  // until a torch is found that imports
  for (const auto& e : f.python.envs)
    for (const auto& t : e.torch) {
      TorchVerdict tv{t.site_packages, t.version.value_or("unknown"), t.cuda, false, ""};
      auto import_fails = import_failure(f, t);
      tv.cuda_available = t.cuda && driver_ok && errors.empty();
      tv.reason = import_fails        ? *import_fails
                  : !t.cuda           ? "CPU-only build (torch.version.cuda is None)"
                  : tv.cuda_available ? "CUDA " + *t.cuda + " build, the driver answers"
                                      : "the driver does not answer";
      v.torch.push_back(tv);
      if (!import_fails) v.cpu_training_ok = true;
    }
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
  torch_dll_rules(f, d, out);
  gpu_preference_rule(f, out);
  watchdog_rule(f, out);
  driver_age_rule(f, d, out);
  settings_rules(f, out);
  toolkit_rules(f, out);
}

}  // namespace dlready
