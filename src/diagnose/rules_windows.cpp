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

std::string cuda_version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

}  // namespace

Verdict windows_verdict(const Facts& f, const Derived& d, const std::vector<Finding>& findings) {
  Verdict v;
  std::vector<std::string> errors;
  for (const auto& x : findings)
    if (x.severity == Severity::error) errors.push_back(x.title + " [" + x.id + "]");
  // The Windows doctor does not read Python's environments yet: it says what the driver answered,
  // and how to ask PyTorch.
  const std::string ask_torch = "PyTorch's side is not read by the Windows doctor yet: python -c \"import torch; "
                                "print(torch.cuda.is_available())\" tells.";
  const auto& drv = f.driver;
  if (!errors.empty()) {
    v.cuda_usable = false;
    v.summary = "CUDA is not usable: " + join(errors, "; ") + ".";
  } else if (drv.status == ProbeStatus::ok && drv.init_result == 0 && drv.device_count.value_or(0) > 0) {
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
}

}  // namespace dlready
