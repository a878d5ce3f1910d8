// The NVML probe: libnvidia-ml.so.1 loaded and initialised in a child process, which reports the
// driver version and every device through the wire (child_wire.hpp).
#include <string>

#include "probe/child_wire.hpp"
#include "probe/driver_api.hpp"
#include "probe/nvidia_api.hpp"

namespace dlready {
namespace {

std::optional<int> mig_instances(const nv::NvmlApi& api, nv::nvmlDevice_t dev) {
  unsigned max = 0;
  if (!api.nvmlDeviceGetMaxMigDeviceCount || !api.nvmlDeviceGetMigDeviceHandleByIndex ||
      api.nvmlDeviceGetMaxMigDeviceCount(dev, &max) != 0)
    return std::nullopt;
  int present = 0;
  for (unsigned m = 0; m < max; ++m) {
    nv::nvmlDevice_t mig = nullptr;
    if (api.nvmlDeviceGetMigDeviceHandleByIndex(dev, m, &mig) == 0) ++present;
  }
  return present;
}

// In the child: what NVML says about one device.
NvmlDevice read_nvml_device(const nv::NvmlApi& api, nv::nvmlDevice_t dev) {
  NvmlDevice d;
  char s[256] = {};
  if (api.nvmlDeviceGetName && api.nvmlDeviceGetName(dev, s, sizeof s - 1) == 0) d.name = s;
  char u[128] = {};
  if (api.nvmlDeviceGetUUID && api.nvmlDeviceGetUUID(dev, u, sizeof u - 1) == 0) d.uuid = u;
  nv::nvmlPciInfo_t pci{};
  if (api.nvmlDeviceGetPciInfo_v3 && api.nvmlDeviceGetPciInfo_v3(dev, &pci) == 0) {
    pci.busId[sizeof pci.busId - 1] = 0;
    d.pci_bus_id = pci.busId;
  }
  int mode = 0;
  if (api.nvmlDeviceGetComputeMode && api.nvmlDeviceGetComputeMode(dev, &mode) == 0) d.compute_mode = mode;
  unsigned cur = 0, pend = 0;
  if (api.nvmlDeviceGetMigMode && api.nvmlDeviceGetMigMode(dev, &cur, &pend) == 0) {
    d.mig_current = static_cast<int>(cur);
    d.mig_pending = static_cast<int>(pend);
    if (cur == 1) d.mig_instances = mig_instances(api, dev);
  }
  int pers = 0;
  if (api.nvmlDeviceGetPersistenceMode && api.nvmlDeviceGetPersistenceMode(dev, &pers) == 0) d.persistence = pers;
  nv::nvmlMemory_t mem{};
  if (api.nvmlDeviceGetMemoryInfo && api.nvmlDeviceGetMemoryInfo(dev, &mem) == 0) {
    d.memory_total = mem.total;
    d.memory_used = mem.used;
  }
  auto link = [&](auto fn) -> std::optional<int> {
    unsigned v = 0;
    if (fn && fn(dev, &v) == 0) return static_cast<int>(v);
    return std::nullopt;
  };
  d.pcie_gen = link(api.nvmlDeviceGetCurrPcieLinkGeneration);
  d.pcie_gen_max = link(api.nvmlDeviceGetMaxPcieLinkGeneration);
  d.pcie_width = link(api.nvmlDeviceGetCurrPcieLinkWidth);
  d.pcie_width_max = link(api.nvmlDeviceGetMaxPcieLinkWidth);
  nv::nvmlBAR1Memory_t bar1{};
  if (api.nvmlDeviceGetBAR1MemoryInfo && api.nvmlDeviceGetBAR1MemoryInfo(dev, &bar1) == 0) d.bar1_total = bar1.bar1Total;
  unsigned long long reasons = 0;
  if (api.nvmlDeviceGetCurrentClocksEventReasons && api.nvmlDeviceGetCurrentClocksEventReasons(dev, &reasons) == 0)
    d.clocks_event_reasons = reasons;
  return d;
}

int nvml_child(const std::string& path, const Emit& emit) {
  void* lib = open_library(path, emit);
  if (!lib) return 3;
  nv::NvmlApi api;
  int missing = !load_symbol(lib, "nvmlInit_v2", api.nvmlInit_v2, emit, true);
  missing += !load_symbol(lib, "nvmlDeviceGetCount_v2", api.nvmlDeviceGetCount_v2, emit, true);
  missing += !load_symbol(lib, "nvmlDeviceGetHandleByIndex_v2", api.nvmlDeviceGetHandleByIndex_v2, emit, true);
  if (missing) return 4;
#define DLREADY_NVML_OPTIONAL(name) load_symbol(lib, #name, api.name, emit, false)
  DLREADY_NVML_OPTIONAL(nvmlShutdown);
  DLREADY_NVML_OPTIONAL(nvmlSystemGetDriverVersion);
  DLREADY_NVML_OPTIONAL(nvmlSystemGetCudaDriverVersion);
  DLREADY_NVML_OPTIONAL(nvmlDeviceGetName);
  DLREADY_NVML_OPTIONAL(nvmlDeviceGetUUID);
  DLREADY_NVML_OPTIONAL(nvmlDeviceGetComputeMode);
  DLREADY_NVML_OPTIONAL(nvmlDeviceGetMigMode);
  DLREADY_NVML_OPTIONAL(nvmlDeviceGetMaxMigDeviceCount);
  DLREADY_NVML_OPTIONAL(nvmlDeviceGetMigDeviceHandleByIndex);
  DLREADY_NVML_OPTIONAL(nvmlDeviceGetPersistenceMode);
  DLREADY_NVML_OPTIONAL(nvmlDeviceGetMemoryInfo);
  DLREADY_NVML_OPTIONAL(nvmlDeviceGetCurrPcieLinkGeneration);
  DLREADY_NVML_OPTIONAL(nvmlDeviceGetMaxPcieLinkGeneration);
  DLREADY_NVML_OPTIONAL(nvmlDeviceGetCurrPcieLinkWidth);
  DLREADY_NVML_OPTIONAL(nvmlDeviceGetMaxPcieLinkWidth);
  DLREADY_NVML_OPTIONAL(nvmlDeviceGetPciInfo_v3);
  DLREADY_NVML_OPTIONAL(nvmlDeviceGetBAR1MemoryInfo);
  if (!DLREADY_NVML_OPTIONAL(nvmlDeviceGetCurrentClocksEventReasons))
    load_symbol(lib, "nvmlDeviceGetCurrentClocksThrottleReasons", api.nvmlDeviceGetCurrentClocksEventReasons, emit, false);
#undef DLREADY_NVML_OPTIONAL
  emit("init_started", "1");
  int rc = api.nvmlInit_v2();
  emit("init", std::to_string(rc));
  if (rc != 0) return 0;
  char buf[256] = {};
  if (api.nvmlSystemGetDriverVersion && api.nvmlSystemGetDriverVersion(buf, sizeof buf - 1) == 0)
    emit("driver_version", buf);
  int cuda = 0;
  if (api.nvmlSystemGetCudaDriverVersion && api.nvmlSystemGetCudaDriverVersion(&cuda) == 0)
    emit("cuda_driver_version", std::to_string(cuda));
  unsigned count = 0;
  if (api.nvmlDeviceGetCount_v2(&count) == 0) emit("count", std::to_string(count));
  for (unsigned i = 0; i < count; ++i) {
    nv::nvmlDevice_t dev = nullptr;
    if (api.nvmlDeviceGetHandleByIndex_v2(i, &dev) != 0) continue;
    emit_device(read_nvml_device(api, dev), nvml_device_fields(), "dev" + std::to_string(i) + ".", emit);
  }
  if (api.nvmlShutdown) api.nvmlShutdown();
  return 0;
}

}  // namespace

NvmlFacts probe_nvml(const RootFs& fs, const LibraryLocation& libnvml, int timeout_ms, const CaptureManifest* replay) {
  NvmlFacts f;
  if (!libnvml.path) return f;
  std::string host = fs.host(fs.resolve(*libnvml.path).value_or(*libnvml.path));
  f.library = *libnvml.path;
  auto answer = run_driver_child(fs, replay, "nvml", [&](const Emit& emit) { return nvml_child(host, emit); }, timeout_ms);
  if (!answer) return f;
  const ChildResult& r = *answer;
  classify_child(r, f.status, f.detail);
  f.init_result = int_value(r, "init");
  f.driver_version = str_value(r, "driver_version");
  f.cuda_driver_version = int_value(r, "cuda_driver_version");
  f.device_count = int_value(r, "count");
  for (int i = 0; i < f.device_count.value_or(0) && i < 64; ++i)
    f.devices.push_back(read_device(r, nvml_device_fields(), i));
  return f;
}

}  // namespace dlready
