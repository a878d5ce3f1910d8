#include "probe/driver_api.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/text.hpp"
#include "probe/child_probe.hpp"
#include "probe/nvidia_api.hpp"

namespace dlready {
namespace {

using Emit = std::function<void(const std::string&, const std::string&)>;

template <typename Fn>
bool load_symbol(void* lib, const char* name, Fn& slot, const Emit& emit, bool required) {
  slot = reinterpret_cast<Fn>(::dlsym(lib, name));
  if (!slot && required) emit("missing_symbol", name);
  return slot != nullptr;
}

// dlopen with the loader's own error text reported; nullptr when the library cannot be loaded.
void* open_library(const std::string& path, const Emit& emit) {
  void* lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* err = ::dlerror();
    emit("load_error", err ? err : "dlopen failed");
    return nullptr;
  }
  emit("loaded", "1");
  return lib;
}

int cuda_child(const std::string& path, const Emit& emit) {
  void* lib = open_library(path, emit);
  if (!lib) return 3;
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
    std::string p = "dev" + std::to_string(i) + ".";
    char buf[256] = {};
    if (api.cuDeviceGetName && api.cuDeviceGetName(buf, sizeof buf - 1, dev) == 0) emit(p + "name", buf);
    auto attr = [&](int a, const char* key) {
      int v = 0;
      if (api.cuDeviceGetAttribute && api.cuDeviceGetAttribute(&v, a, dev) == 0)
        emit(p + key, std::to_string(v));
    };
    attr(nv::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "cc_major");
    attr(nv::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "cc_minor");
    attr(nv::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "sms");
    attr(nv::CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, "compute_mode");
    size_t mem = 0;
    if (api.cuDeviceTotalMem_v2 && api.cuDeviceTotalMem_v2(&mem, dev) == 0)
      emit(p + "memory", std::to_string(mem));
    char bus[64] = {};
    if (api.cuDeviceGetPCIBusId && api.cuDeviceGetPCIBusId(bus, sizeof bus - 1, dev) == 0)
      emit(p + "pci_bus_id", bus);
    nv::CUuuid uuid{};
    if (api.cuDeviceGetUuid_v2 && api.cuDeviceGetUuid_v2(&uuid, dev) == 0) {
      char s[64];
      const unsigned char* b = uuid.bytes;
      std::snprintf(s, sizeof s,
                    "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                    b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                    b[14], b[15]);
      emit(p + "uuid", s);
    }
  }
  return 0;
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
    std::string p = "dev" + std::to_string(i) + ".";
    char s[256] = {};
    if (api.nvmlDeviceGetName && api.nvmlDeviceGetName(dev, s, sizeof s - 1) == 0) emit(p + "name", s);
    char u[128] = {};
    if (api.nvmlDeviceGetUUID && api.nvmlDeviceGetUUID(dev, u, sizeof u - 1) == 0) emit(p + "uuid", u);
    int mode = 0;
    if (api.nvmlDeviceGetComputeMode && api.nvmlDeviceGetComputeMode(dev, &mode) == 0)
      emit(p + "compute_mode", std::to_string(mode));
    unsigned cur = 0, pend = 0;
    if (api.nvmlDeviceGetMigMode && api.nvmlDeviceGetMigMode(dev, &cur, &pend) == 0) {
      emit(p + "mig_current", std::to_string(cur));
      emit(p + "mig_pending", std::to_string(pend));
      unsigned max = 0;
      if (cur == 1 && api.nvmlDeviceGetMaxMigDeviceCount && api.nvmlDeviceGetMigDeviceHandleByIndex &&
          api.nvmlDeviceGetMaxMigDeviceCount(dev, &max) == 0) {
        int present = 0;
        for (unsigned m = 0; m < max; ++m) {
          nv::nvmlDevice_t mig = nullptr;
          if (api.nvmlDeviceGetMigDeviceHandleByIndex(dev, m, &mig) == 0) ++present;
        }
        emit(p + "mig_instances", std::to_string(present));
      }
    }
    int pers = 0;
    if (api.nvmlDeviceGetPersistenceMode && api.nvmlDeviceGetPersistenceMode(dev, &pers) == 0)
      emit(p + "persistence", std::to_string(pers));
    nv::nvmlMemory_t mem{};
    if (api.nvmlDeviceGetMemoryInfo && api.nvmlDeviceGetMemoryInfo(dev, &mem) == 0) {
      emit(p + "memory_total", std::to_string(mem.total));
      emit(p + "memory_used", std::to_string(mem.used));
    }
    auto link = [&](auto fn, const char* key) {
      unsigned v = 0;
      if (fn && fn(dev, &v) == 0) emit(p + key, std::to_string(v));
    };
    link(api.nvmlDeviceGetCurrPcieLinkGeneration, "pcie_gen");
    link(api.nvmlDeviceGetMaxPcieLinkGeneration, "pcie_gen_max");
    link(api.nvmlDeviceGetCurrPcieLinkWidth, "pcie_width");
    link(api.nvmlDeviceGetMaxPcieLinkWidth, "pcie_width_max");
  }
  if (api.nvmlShutdown) api.nvmlShutdown();
  return 0;
}

std::optional<int> int_value(const ChildResult& r, const std::string& k) {
  auto it = r.values.find(k);
  if (it == r.values.end()) return std::nullopt;
  auto v = parse_int(it->second);
  if (!v) return std::nullopt;
  return static_cast<int>(*v);
}
std::optional<uint64_t> u64_value(const ChildResult& r, const std::string& k) {
  auto it = r.values.find(k);
  if (it == r.values.end()) return std::nullopt;
  auto v = parse_int(it->second);
  if (!v || *v < 0) return std::nullopt;
  return static_cast<uint64_t>(*v);
}
std::optional<std::string> str_value(const ChildResult& r, const std::string& k) {
  auto it = r.values.find(k);
  if (it == r.values.end()) return std::nullopt;
  return it->second;
}

// Shared classification of how the child ended.
template <typename F>
void classify(const ChildResult& r, F& facts) {
  if (r.end == ChildResult::End::timed_out) {
    facts.status = ProbeStatus::timeout;
    facts.detail = r.values.count("init_started") ? "initialisation did not return" : "library load did not return";
  } else if (r.end == ChildResult::End::signalled) {
    facts.status = ProbeStatus::crashed;
    facts.detail = std::string("killed by signal ") + std::to_string(r.code) +
                   (r.values.count("init_started") ? " during initialisation" : " while loading");
  } else if (r.end == ChildResult::End::fork_failed) {
    facts.status = ProbeStatus::failed;
    facts.detail = "could not start the probe process";
  } else if (auto e = str_value(r, "load_error")) {
    facts.status = ProbeStatus::load_failed;
    facts.detail = *e;
  } else if (auto m = str_value(r, "missing_symbol")) {
    facts.status = ProbeStatus::symbol_missing;
    facts.detail = "missing symbol " + *m;
  } else if (r.code != 0) {
    facts.status = ProbeStatus::failed;
    facts.detail = "probe exited with status " + std::to_string(r.code);
  } else {
    facts.status = ProbeStatus::ok;
  }
}

}  // namespace

DriverApiFacts probe_driver_api(const RootFs& fs, const LibraryLocation& libcuda, const EnvFacts& env,
                                int timeout_ms) {
  DriverApiFacts f;
  if (!libcuda.path) return f;
  std::string host = fs.host(*libcuda.path);
  f.library = *libcuda.path;
  auto r = run_child_probe(
      [&](const Emit& emit) {
        for (const char* k : {"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER"}) {
          if (auto v = env.get(k))
            ::setenv(k, v->c_str(), 1);
          else
            ::unsetenv(k);
        }
        return cuda_child(host, emit);
      },
      timeout_ms);
  classify(r, f);
  f.elapsed_ms = r.elapsed_ms;
  f.init_result = int_value(r, "init");
  f.init_error_name = str_value(r, "init_name");
  f.driver_version = int_value(r, "driver_version");
  f.device_count = int_value(r, "count");
  for (int i = 0; i < f.device_count.value_or(0) && i < 64; ++i) {
    std::string p = "dev" + std::to_string(i) + ".";
    CudaDevice d;
    d.index = i;
    d.name = str_value(r, p + "name");
    d.cc_major = int_value(r, p + "cc_major");
    d.cc_minor = int_value(r, p + "cc_minor");
    d.sm_count = int_value(r, p + "sms");
    d.compute_mode = int_value(r, p + "compute_mode");
    d.memory_bytes = u64_value(r, p + "memory");
    d.pci_bus_id = str_value(r, p + "pci_bus_id");
    d.uuid = str_value(r, p + "uuid");
    f.devices.push_back(d);
  }
  return f;
}

NvmlFacts probe_nvml(const RootFs& fs, const LibraryLocation& libnvml, int timeout_ms) {
  NvmlFacts f;
  if (!libnvml.path) return f;
  std::string host = fs.host(*libnvml.path);
  f.library = *libnvml.path;
  auto r = run_child_probe([&](const Emit& emit) { return nvml_child(host, emit); }, timeout_ms);
  classify(r, f);
  f.init_result = int_value(r, "init");
  f.driver_version = str_value(r, "driver_version");
  f.cuda_driver_version = int_value(r, "cuda_driver_version");
  f.device_count = int_value(r, "count");
  for (int i = 0; i < f.device_count.value_or(0) && i < 64; ++i) {
    std::string p = "dev" + std::to_string(i) + ".";
    NvmlDevice d;
    d.index = i;
    d.name = str_value(r, p + "name");
    d.uuid = str_value(r, p + "uuid");
    d.compute_mode = int_value(r, p + "compute_mode");
    d.mig_current = int_value(r, p + "mig_current");
    d.mig_pending = int_value(r, p + "mig_pending");
    d.mig_instances = int_value(r, p + "mig_instances");
    d.persistence = int_value(r, p + "persistence");
    d.memory_total = u64_value(r, p + "memory_total");
    d.memory_used = u64_value(r, p + "memory_used");
    d.pcie_gen = int_value(r, p + "pcie_gen");
    d.pcie_gen_max = int_value(r, p + "pcie_gen_max");
    d.pcie_width = int_value(r, p + "pcie_width");
    d.pcie_width_max = int_value(r, p + "pcie_width_max");
    f.devices.push_back(d);
  }
  return f;
}

}  // namespace dlready
