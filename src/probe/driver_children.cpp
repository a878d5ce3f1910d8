#include "probe/driver_children.hpp"

#include <cstdio>

#include "probe/nvidia_api.hpp"
#include "core/text.hpp"

namespace dlready {

namespace {

const char* end_name(ChildResult::End e) {
  switch (e) {
    case ChildResult::End::exited: return "exited";
    case ChildResult::End::signalled: return "signalled";
    case ChildResult::End::timed_out: return "timed_out";
    case ChildResult::End::fork_failed: return "fork_failed";
  }
  return "exited";
}

}  // namespace

ChildAnswer child_answer(const ChildResult& r) { return ChildAnswer{end_name(r.end), r.code, r.elapsed_ms, r.values}; }

ChildResult child_result(const ChildAnswer& a) {
  ChildResult r;
  for (auto e : {ChildResult::End::signalled, ChildResult::End::timed_out, ChildResult::End::fork_failed})
    if (a.end == end_name(e)) r.end = e;
  r.code = a.code;
  r.elapsed_ms = a.elapsed_ms;
  r.values = a.values;
  return r;
}
namespace {

// In the child: what the driver says about one device.
CudaDevice read_cuda_device(const nv::CudaApi& api, nv::CUdevice dev) {
  CudaDevice d;
  char buf[256] = {};
  if (api.cuDeviceGetName && api.cuDeviceGetName(buf, sizeof buf - 1, dev) == 0) d.name = buf;
  auto attr = [&](int a) -> std::optional<int> {
    int v = 0;
    if (api.cuDeviceGetAttribute && api.cuDeviceGetAttribute(&v, a, dev) == 0) return v;
    return std::nullopt;
  };
  d.cc_major = attr(nv::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  d.cc_minor = attr(nv::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  d.sm_count = attr(nv::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  d.compute_mode = attr(nv::CU_DEVICE_ATTRIBUTE_COMPUTE_MODE);
  size_t mem = 0;
  if (api.cuDeviceTotalMem_v2 && api.cuDeviceTotalMem_v2(&mem, dev) == 0) d.memory_bytes = mem;
  char bus[64] = {};
  if (api.cuDeviceGetPCIBusId && api.cuDeviceGetPCIBusId(bus, sizeof bus - 1, dev) == 0) d.pci_bus_id = bus;
  nv::CUuuid uuid{};
  if (api.cuDeviceGetUuid_v2 && api.cuDeviceGetUuid_v2(&uuid, dev) == 0) {
    char s[64];
    const unsigned char* b = uuid.bytes;
    std::snprintf(s, sizeof s, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                  b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    d.uuid = s;
  }
  return d;
}

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
  int model = 0, pending_model = 0;
  if (api.nvmlDeviceGetDriverModel && api.nvmlDeviceGetDriverModel(dev, &model, &pending_model) == 0) d.driver_model = model;
  return d;
}

}  // namespace

std::string wire_line(const std::string& key, const std::string& value) {
  std::string line = key + "=";
  for (char c : value) line += (c == '\n' ? ' ' : c);
  return line + "\n";
}

void read_wire(const std::string& text, ChildResult& r) {
  for (const auto& line : lines(text)) {
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    auto& slot = r.values[line.substr(0, eq)];
    slot += (slot.empty() ? "" : ", ") + line.substr(eq + 1);
  }
}

std::optional<int> int_value(const ChildResult& r, const std::string& key) {
  auto it = r.values.find(key);
  if (it == r.values.end()) return std::nullopt;
  auto v = parse_int(it->second);
  if (!v) return std::nullopt;
  return static_cast<int>(*v);
}

std::optional<std::string> str_value(const ChildResult& r, const std::string& key) {
  auto it = r.values.find(key);
  if (it == r.values.end()) return std::nullopt;
  return it->second;
}

bool load_symbol_address(const SymbolLookup& lib, const char* name, void** slot, const Emit& emit, bool required) {
  *slot = lib(name);
  if (!*slot && required) emit("missing_symbol", name);
  return *slot != nullptr;
}

int cuda_driver_calls(const SymbolLookup& lib, const Emit& emit) {
  nv::CudaApi api;
  // Look every required symbol up (not short-circuit) so the report names all that are missing.
  int missing = !load_symbol(lib, "cuInit", api.cuInit, emit, true);
  missing += !load_symbol(lib, "cuDriverGetVersion", api.cuDriverGetVersion, emit, true);
  missing += !load_symbol(lib, "cuDeviceGetCount", api.cuDeviceGetCount, emit, true);
  if (missing) return 4;
  load_symbol(lib, "cuDeviceGet", api.cuDeviceGet, emit, false);
  load_symbol(lib, "cuDeviceGetName", api.cuDeviceGetName, emit, false);
  load_symbol(lib, "cuDeviceGetAttribute", api.cuDeviceGetAttribute, emit, false);
  load_symbol(lib, "cuDeviceTotalMem_v2", api.cuDeviceTotalMem_v2, emit, false);
  load_symbol(lib, "cuDeviceGetPCIBusId", api.cuDeviceGetPCIBusId, emit, false);
  if (!load_symbol(lib, "cuDeviceGetUuid_v2", api.cuDeviceGetUuid_v2, emit, false))
    load_symbol(lib, "cuDeviceGetUuid", api.cuDeviceGetUuid_v2, emit, false);
  load_symbol(lib, "cuGetErrorName", api.cuGetErrorName, emit, false);

  // The driver version does not need cuInit; ask first so a failing init still tells us.
  int version = 0;
  if (api.cuDriverGetVersion(&version) == 0) emit("driver_version", std::to_string(version));
  emit("init_started", "1");
  int rc = api.cuInit(0);
  emit("init", std::to_string(rc));
  const char* name = nullptr;
  if (api.cuGetErrorName && api.cuGetErrorName(rc, &name) == 0 && name)
    emit("init_name", name);
  else
    emit("init_name", nv::cuda_error_name(rc));
  if (rc != 0) return 0;
  int count = 0;
  if (api.cuDeviceGetCount(&count) != 0) return 0;
  emit("count", std::to_string(count));
  for (int i = 0; i < count && api.cuDeviceGet; ++i) {
    nv::CUdevice dev = 0;
    if (api.cuDeviceGet(&dev, i) != 0) continue;
    emit_device(read_cuda_device(api, dev), cuda_device_fields(), "dev" + std::to_string(i) + ".", emit);
  }
  return 0;
}

int nvml_calls(const SymbolLookup& lib, const Emit& emit) {
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
  if (!load_symbol(lib, "nvmlDeviceGetDriverModel_v2", api.nvmlDeviceGetDriverModel, emit, false))
    DLREADY_NVML_OPTIONAL(nvmlDeviceGetDriverModel);
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

void classify_child(const ChildResult& r, ProbeStatus& status, std::string& detail) {
  if (r.end == ChildResult::End::timed_out) {
    status = ProbeStatus::timeout;
    detail = r.values.count("init_started") ? "initialisation did not return" : "library load did not return";
  } else if (r.end == ChildResult::End::signalled) {
    status = ProbeStatus::crashed;
    char exception[32];
    std::snprintf(exception, sizeof exception, "exception 0x%08X", static_cast<unsigned>(r.code));
    // A Windows child ends by an exception's code (0xC0000005: access violation), a POSIX one by a signal.
    detail = (static_cast<unsigned>(r.code) >= 0xC0000000u ? std::string("crashed with ") + exception
                                                            : "killed by signal " + std::to_string(r.code)) +
             (r.values.count("init_started") ? " during initialisation" : " while loading");
  } else if (r.end == ChildResult::End::fork_failed) {
    status = ProbeStatus::failed;
    detail = "could not start the probe process";
  } else if (auto e = str_value(r, "load_error")) {
    status = ProbeStatus::load_failed;
    detail = *e;
  } else if (auto m = str_value(r, "missing_symbol")) {
    status = ProbeStatus::symbol_missing;
    detail = "missing symbol " + *m;
  } else if (r.code != 0) {
    status = ProbeStatus::failed;
    detail = "probe exited with status " + std::to_string(r.code);
  } else {
    status = ProbeStatus::ok;
  }
}


DriverApiFacts driver_api_from(const ChildResult& r) {
  DriverApiFacts f;
  classify_child(r, f.status, f.detail);
  f.elapsed_ms = r.elapsed_ms;
  f.init_result = int_value(r, "init");
  f.init_error_name = str_value(r, "init_name");
  f.driver_version = int_value(r, "driver_version");
  f.device_count = int_value(r, "count");
  for (int i = 0; i < f.device_count.value_or(0) && i < 64; ++i)
    f.devices.push_back(read_device(r, cuda_device_fields(), i));
  return f;
}

NvmlFacts nvml_from(const ChildResult& r) {
  NvmlFacts f;
  classify_child(r, f.status, f.detail);
  f.init_result = int_value(r, "init");
  // The version goes into advice and commands ("for driver 580.65.06"): only a version's
  // characters are one (a capture's answer can hold anything).
  f.driver_version = str_value(r, "driver_version");
  if (f.driver_version && (f.driver_version->empty() || f.driver_version->size() > 32 ||
                           f.driver_version->find_first_not_of("0123456789.") != std::string::npos))
    f.driver_version.reset();
  f.cuda_driver_version = int_value(r, "cuda_driver_version");
  f.device_count = int_value(r, "count");
  for (int i = 0; i < f.device_count.value_or(0) && i < 64; ++i)
    f.devices.push_back(read_device(r, nvml_device_fields(), i));
  return f;
}

}  // namespace dlready
