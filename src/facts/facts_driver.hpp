// What the CUDA driver API and NVML answered in their child processes. The devices' fields are
// facts/device_fields.hpp (the child's wire and the JSON alike).
// Plain data (std::nullopt = unknown); the tables say how each field is written (facts/fact_table.hpp).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "facts/fact_table.hpp"

namespace dlready {

struct CudaDevice {
  int index = 0;
  std::optional<std::string> name, pci_bus_id, uuid;
  std::optional<int> cc_major, cc_minor, sm_count;
  std::optional<uint64_t> memory_bytes;
  std::optional<int> compute_mode;  // CUdevice_attribute COMPUTE_MODE: 0 default, 2 prohibited, 3 exclusive
};

enum class ProbeStatus { not_run, ok, load_failed, symbol_missing, timeout, crashed, failed };
const char* to_string(ProbeStatus s);

struct DriverApiFacts {
  ProbeStatus status = ProbeStatus::not_run;
  std::optional<std::string> library;  // the file dlopen'ed
  std::string detail;                  // dlerror(), missing symbol, signal, ...
  std::optional<int> init_result;      // cuInit(0)
  std::optional<std::string> init_error_name;
  std::optional<int> driver_version;   // cuDriverGetVersion: 13000 = CUDA 13.0
  std::optional<int> device_count;
  std::vector<CudaDevice> devices;
  double elapsed_ms = 0;
};

struct NvmlDevice {
  int index = 0;
  std::optional<std::string> name, pci_bus_id, uuid;
  std::optional<int> compute_mode;         // nvmlComputeMode_t
  std::optional<int> mig_current, mig_pending;  // 1 = enabled
  std::optional<int> mig_instances;        // GPU instances present when MIG is enabled
  std::optional<int> persistence;          // 1 = enabled
  std::optional<uint64_t> memory_total, memory_used;
  std::optional<int> pcie_gen, pcie_gen_max, pcie_width, pcie_width_max;
  std::optional<uint64_t> bar1_total;  // nvmlDeviceGetBAR1MemoryInfo: the BAR1 the driver mapped
  // nvmlDeviceGetCurrentClocksEventReasons: why the clocks are below their maximum now (a bit mask:
  // 0x1 idle, 0x4 power cap, 0x8 hardware slowdown, 0x20/0x40 thermal, 0x80 power brake)
  std::optional<uint64_t> clocks_event_reasons;
  // nvmlDeviceGetDriverModel (Windows only): 0 WDDM (a display device: Windows' watchdog ends long
  // kernels), 1 TCC, 2 MCDM (compute devices); unknown on Linux.
  std::optional<int> driver_model;
};

struct NvmlFacts {
  ProbeStatus status = ProbeStatus::not_run;
  std::optional<std::string> library;
  std::string detail;
  std::optional<int> init_result;  // nvmlInit_v2
  std::optional<std::string> driver_version;
  std::optional<int> cuda_driver_version;
  std::optional<int> device_count;
  std::vector<NvmlDevice> devices;
};

const FactTable<DriverApiFacts>& driver_api_fields();
const FactTable<NvmlFacts>& nvml_fields();

}  // namespace dlready
