#include <cstdlib>

#include "core/text.hpp"
#include "compat/compat.hpp"
#include "diagnose/rules.hpp"

namespace dlready {

Derived derive(const Facts& f) {
  Derived d;
  if (f.os.arch == std::string("aarch64")) d.machine = "aarch64";
  for (const auto& fn : f.pci.nvidia)
    if (fn.is_gpu) ++d.pci_gpus;
  d.in_container = f.os.container.has_value();
  bool answering = f.nvml.device_count.value_or(0) > 0 || f.driver.device_count.value_or(0) > 0;
  d.gpu_evidence = d.pci_gpus > 0 || (f.os.wsl && f.os.wsl_dxg) || answering;
  bool any_gpu_node = false;
  for (const auto& n : f.nodes.nodes)
    if (n.exists && n.path != "/dev/nvidiactl" && n.path != "/dev/nvidia-uvm") any_gpu_node = true;
  d.container_blocked = d.in_container && d.pci_gpus > 0 && !f.os.wsl && (!any_gpu_node || !f.libcuda.found());
  if (f.kernel.loaded_version)
    d.driver_version = f.kernel.loaded_version;
  else if (f.nvml.driver_version)
    d.driver_version = f.nvml.driver_version;
  else if (f.libcuda.version && !f.libcuda.stub && !f.libcuda.wsl)
    d.driver_version = f.libcuda.version;
  if (f.driver.driver_version && *f.driver.driver_version > 0)
    d.driver_max_cuda = cuda_version_string(*f.driver.driver_version);
  else if (f.nvml.cuda_driver_version && *f.nvml.cuda_driver_version > 0)
    d.driver_max_cuda = cuda_version_string(*f.nvml.cuda_driver_version);
  else if (d.driver_version)
    d.driver_max_cuda = max_cuda_for_driver(*d.driver_version);
  if (f.nvml.device_count)
    d.physical_gpus = f.nvml.device_count;
  else if (d.pci_gpus > 0)
    d.physical_gpus = d.pci_gpus;
  for (const auto& dev : f.nvml.devices)
    if (dev.uuid) d.known_uuids.push_back(*dev.uuid);
  for (const auto& dev : f.driver.devices)
    if (dev.uuid) d.known_uuids.push_back(*dev.uuid);
  for (const auto& dev : f.driver.devices)
    if (dev.cc_major && dev.cc_minor)
      // Named as the GPU list names it too: cuda:N and its PCI address (issue 34, item 4).
      d.gpu_archs.push_back({"cuda:" + std::to_string(dev.index) + " " + dev.name.value_or("GPU") +
                                 (dev.pci_bus_id ? " (" + *dev.pci_bus_id + ")" : ""),
                             *dev.cc_major, *dev.cc_minor, "driver"});
  // A Jetson's GPU is integrated: no PCI function, its architecture from the device tree.
  if (f.arm && f.arm->tegra) {
    d.gpu_evidence = true;
    if (auto g = tegra_gpu(*f.arm); g && d.gpu_archs.empty()) d.gpu_archs.push_back(*g);
  }
  if (d.gpu_archs.empty())
    for (const auto& fn : f.pci.nvidia)
      if (fn.is_gpu)
        if (auto g = gpu_by_pci_id(fn.vendor_id, fn.device_id))
          d.gpu_archs.push_back({fn.address + " " + pci_gpu_name(fn.name, fn.vendor_id, fn.device_id), g->cc_major,
                                 g->cc_minor, "PCI id table"});
  return d;
}

bool same_pci_address(const std::string& a, const std::string& b) {
  auto split_domain = [](const std::string& s) -> std::pair<long, std::string> {
    auto colon = s.find(':');
    if (colon == std::string::npos) return {-1, to_lower(s)};
    return {std::strtol(s.substr(0, colon).c_str(), nullptr, 16), to_lower(s.substr(colon + 1))};
  };
  return split_domain(a) == split_domain(b);
}

VisibleDevices parse_cuda_visible_devices(const std::string& value, std::optional<int> gpu_count,
                                          const std::vector<std::string>& uuids) {
  VisibleDevices v;
  auto entries = split(value, ',', true);
  bool stopped = false;
  for (const auto& raw : entries) {
    std::string e = trim(raw);
    if (stopped) {
      v.rejected.push_back(e);
      continue;
    }
    std::string why;
    if (e.empty()) {
      why = "an empty entry";
    } else if (auto n = parse_int(e)) {
      if (*n < 0)
        why = "'" + e + "' is negative (the usual way to hide all GPUs)";
      else if (gpu_count && *n >= *gpu_count)
        why = "index " + e + " is out of range (" + std::to_string(*gpu_count) + " GPU(s), indexes 0-" +
              std::to_string(*gpu_count - 1) + ")";
    } else if (starts_with(e, "GPU-") || starts_with(e, "MIG-")) {
      if (!uuids.empty() && starts_with(e, "GPU-")) {
        bool match = false;
        for (const auto& u : uuids)
          if (starts_with(u, e)) match = true;
        if (!match) why = "'" + e + "' matches no GPU UUID";
      }
    } else {
      why = "'" + e + "' is neither an index nor a GPU-/MIG- UUID";
    }
    if (why.empty())
      for (const auto& a : v.accepted)
        if (a == e) why = "'" + e + "' is listed twice";
    if (!why.empty()) {
      stopped = true;
      v.reason = why;
      v.rejected.push_back(e);
      continue;
    }
    v.accepted.push_back(e);
  }
  if (value.empty()) v.reason = "it is set to the empty string";
  return v;
}

const TorchInstall* primary_torch(const Facts& f) {
  for (const auto& e : f.python.envs)
    if (e.active && !e.torch.empty()) return &e.torch.front();
  for (const auto& e : f.python.envs)
    if (e.active) return nullptr;  // an active env without torch: that is what `python` imports
  for (const auto& e : f.python.envs)
    if (!e.torch.empty()) return &e.torch.front();
  return nullptr;
}

}  // namespace dlready
