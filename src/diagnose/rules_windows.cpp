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

}  // namespace

Verdict windows_verdict(const std::vector<Finding>& findings) {
  Verdict v;
  std::vector<std::string> errors;
  for (const auto& x : findings)
    if (x.severity == Severity::error) errors.push_back(x.title + " [" + x.id + "]");
  // What the Windows doctor reads today: the adapters and the driver's files; not yet the driver's
  // own answer (cuInit) nor Python's environments, so it never claims CUDA works.
  if (!errors.empty()) {
    v.cuda_usable = false;
    v.summary = "CUDA is not usable: " + join(errors, "; ") + ".";
  } else {
    v.summary = "An NVIDIA GPU and its driver's files are there; this Windows doctor does not yet ask the driver "
                "(cuInit) or read Python's environments: python -c \"import torch; print(torch.cuda.is_available())\" "
                "tells.";
  }
  return v;
}

void rules_windows(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  presence_rule(f, d, out);
  driver_rule(f, d, out);
}

}  // namespace dlready
