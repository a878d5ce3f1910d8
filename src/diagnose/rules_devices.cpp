// What the driver and NVML say of each GPU (clocks slowed, compute mode, MIG, memory in use) and
// which of them CUDA_VISIBLE_DEVICES lets CUDA see: the same on every platform with an NVIDIA driver
// (the record's RuleGroup::devices), worded in the platform's shell and admin terms.
#include <algorithm>

#include "core/cuda_error_codes.hpp"
#include "core/text.hpp"
#include "diagnose/catalogue.hpp"
#include "diagnose/rules.hpp"
#include "platform/platform_record.hpp"

namespace dlready {
namespace {

// The clocks event reasons that slow a GPU down behind the user's back (nvml.h's bits); the power
// cap (0x4) and idling (0x1) are how a healthy GPU runs.
std::string clock_slowdowns(uint64_t reasons) {
  std::vector<std::string> named;
  for (const auto& [bit, name] : std::initializer_list<std::pair<uint64_t, const char*>>{
           {0x8, "hardware slowdown (HW_SLOWDOWN: power supply or temperature signal)"},
           {0x40, "hardware thermal slowdown (HW_THERMAL_SLOWDOWN)"},
           {0x20, "software thermal slowdown (SW_THERMAL_SLOWDOWN: above its maximum temperature)"},
           {0x80, "hardware power brake (HW_POWER_BRAKE_SLOWDOWN: the external power brake signal)"}})
    if (reasons & bit) named.push_back(name);
  return join(named, ", ");
}

void clock_rule(const Facts& f, std::vector<Finding>& out) {
  std::vector<std::string> slowed;
  for (const auto& g : f.nvml.devices)
    if (auto why = clock_slowdowns(g.clocks_event_reasons.value_or(0)); !why.empty())
      slowed.push_back("GPU " + std::to_string(g.index) + " " + g.name.value_or("") + ": " + why);
  if (slowed.empty()) return;
  auto x = make_finding("gpu-clocks-slowed");
  x.evidence = slowed;
  x.fix = {"see the temperatures, power draw and every reason: nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER",
           "check the cooling (fans, airflow, dust) and the GPU's power cables; a slowdown that stays on an idle "
           "GPU is a hardware fault for the machine's vendor"};
  out.push_back(x);
}

// nvidia-smi's changes need root on Linux and an administrator's terminal on Windows.
std::string as_admin(const Facts& f, const std::string& command) { return as_admin(platform_of(f), command); }

void nvml_device_rules(const Facts& f, std::vector<Finding>& out) {
  clock_rule(f, out);
  std::vector<std::string> prohibited, exclusive, busy;
  for (const auto& g : f.nvml.devices) {
    std::string label = "GPU " + std::to_string(g.index) + " " + g.name.value_or("");
    if (g.compute_mode == nv::NVML_COMPUTEMODE_PROHIBITED) prohibited.push_back(label);
    if (g.compute_mode == 3) exclusive.push_back(label);
    if (g.mig_current == 1 && g.mig_instances == 0) {
      auto x = make_finding("mig-without-instances");
      x.evidence.push_back(label + ": MIG enabled, 0 GPU instances");
      x.fix = {"create instances: " + as_admin(f, "nvidia-smi mig -i " + std::to_string(g.index) + " -cgi 9,9 -C") +
                   " (list profiles with: nvidia-smi mig -lgip)",
               "or turn MIG off: " + as_admin(f, "nvidia-smi -i " + std::to_string(g.index) + " -mig 0") + ", then " +
                   as_admin(f, "nvidia-smi -i " + std::to_string(g.index) + " -r")};
      out.push_back(x);
    }
    if (g.mig_current && g.mig_pending && *g.mig_current != *g.mig_pending) {
      auto x = make_finding("mig-pending-reset");
      x.evidence.push_back(label + ": MIG current " + std::to_string(*g.mig_current) + ", pending " + std::to_string(*g.mig_pending));
      x.fix = {as_admin(f, "nvidia-smi -i " + std::to_string(g.index) + " -r") + " with no process on the GPU, or restart "
               "the machine"};
      out.push_back(x);
    }
    if (g.memory_total && g.memory_used && *g.memory_total > 0 && *g.memory_used * 2 > *g.memory_total)
      busy.push_back(label + ": " + human_bytes(*g.memory_used) + " of " + human_bytes(*g.memory_total) + " in use");
  }
  for (const auto& g : f.driver.devices) {
    if (g.compute_mode == 2 && f.nvml.devices.empty()) prohibited.push_back("GPU " + std::to_string(g.index));
    if (g.compute_mode == 3 && f.nvml.devices.empty()) exclusive.push_back("GPU " + std::to_string(g.index));
  }
  if (!prohibited.empty()) {
    auto x = make_finding("compute-mode-prohibited");
    x.evidence = prohibited;
    x.fix = {as_admin(f, "nvidia-smi -c DEFAULT") + " (or -i N for one GPU)"};
    out.push_back(x);
  }
  if (!exclusive.empty()) {
    auto x = make_finding("compute-mode-exclusive");
    x.evidence = exclusive;
    x.fix = {"to share the GPU between processes: " + as_admin(f, "nvidia-smi -c DEFAULT")};
    out.push_back(x);
  }
  if (!busy.empty()) {
    auto x = make_finding("gpu-memory-busy");
    x.evidence = busy;
    x.fix = {"see who holds it: nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv",
             "stop those processes, or train with a smaller batch / --amp bf16"};
    // Expandable segments are not in PyTorch's allocator everywhere (not on Windows).
    if (platform_of(f).expandable_segments)
      x.fix.push_back("fragmentation helps too: " + set_variable(platform_of(f), "PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"));
    out.push_back(x);
  }
}


void visible_devices_rules(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  auto cvd = f.env.get("CUDA_VISIBLE_DEVICES");
  if (!cvd || !d.gpu_evidence) return;
  const PlatformRecord& shell = platform_of(f);
  auto v = parse_cuda_visible_devices(*cvd, d.physical_gpus, d.known_uuids);
  if (v.accepted.empty()) {
    auto x = make_finding("cuda-visible-devices-hides-all");
    x.evidence.push_back("CUDA_VISIBLE_DEVICES=\"" + *cvd + "\": " + v.reason);
    if (d.physical_gpus) x.evidence.push_back(std::to_string(*d.physical_gpus) + " GPU(s) present");
    x.fix = {unset_variable(shell, "CUDA_VISIBLE_DEVICES"),
             "or list GPUs that exist: " + set_variable(shell, "CUDA_VISIBLE_DEVICES", "0")};
    out.push_back(x);
  } else if (!v.rejected.empty()) {
    auto x = make_finding("cuda-visible-devices-invalid");
    x.evidence.push_back("CUDA_VISIBLE_DEVICES=\"" + *cvd + "\": " + v.reason);
    x.evidence.push_back("CUDA uses only: " + join(v.accepted, ",") + "; ignores: " + join(v.rejected, ","));
    x.fix = {set_variable(shell, "CUDA_VISIBLE_DEVICES", join(v.accepted, ",")) + " (or list the GPUs you meant)"};
    out.push_back(x);
  }
}

// A GPU whose architecture the driver's branch does not drive (data/driver_arch.tsv): too old for
// a new GPU, too new for an old one. The GPU is known from the driver or else its PCI id.
void driver_branch_rule(const Derived& d, std::vector<Finding>& out) {
  if (!d.driver_version) return;
  auto branch = driver_branch(*d.driver_version);
  if (!branch) return;
  auto x = make_finding("driver-does-not-drive-gpu");
  for (const auto& g : d.gpu_archs) {
    auto limits = driver_limits(g.major, g.minor);
    if (!limits) continue;
    const std::string gpu = g.label + " (sm_" + std::to_string(g.major) + std::to_string(g.minor) +
                            ", " + limits->arch + ")";
    if (limits->first_branch > 0 && *branch < limits->first_branch) {
      x.evidence.push_back(gpu + ": its first driver branch is R" +
                           std::to_string(limits->first_branch) + "; this driver is " +
                           *d.driver_version);
      x.fix.push_back("install an NVIDIA driver of branch R" +
                      std::to_string(limits->first_branch) +
                      " or newer, then run dlready doctor again");
    } else if (limits->last_branch > 0 && *branch > limits->last_branch) {
      x.evidence.push_back(gpu + ": its last driver branch is R" +
                           std::to_string(limits->last_branch) + "; this driver is " +
                           *d.driver_version);
      x.fix.push_back("install the newest R" + std::to_string(limits->last_branch) + " driver (" +
                      std::to_string(limits->last_branch) + ".x), the last that drives " +
                      limits->arch);
    }
  }
  if (x.evidence.empty()) return;
  std::sort(x.fix.begin(), x.fix.end());
  x.fix.erase(std::unique(x.fix.begin(), x.fix.end()), x.fix.end());
  out.push_back(x);
}

}  // namespace

void rules_devices(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  if (!d.gpu_evidence) return;
  nvml_device_rules(f, out);
  visible_devices_rules(f, d, out);
  driver_branch_rule(d, out);
}

}  // namespace dlready
