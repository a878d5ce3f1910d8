// The CUDA driver API probe: libcuda.so.1 loaded and cuInit called in a child process, which
// reports the driver version, cuInit's result and every device through the wire (child_wire.hpp).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "probe/child_wire.hpp"
#include "probe/driver_api.hpp"
#include "probe/nvidia_api.hpp"

namespace dlready {
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
    emit_device(read_cuda_device(api, dev), cuda_device_fields(), "dev" + std::to_string(i) + ".", emit);
  }
  return 0;
}

}  // namespace

DriverApiFacts probe_driver_api(const RootFs& fs, const LibraryLocation& libcuda, const EnvFacts& env,
                                int timeout_ms, const CaptureManifest* replay) {
  DriverApiFacts f;
  if (!libcuda.path) return f;
  std::string host = fs.host(fs.resolve(*libcuda.path).value_or(*libcuda.path));
  f.library = *libcuda.path;
  auto answer = run_driver_child(
      fs, replay, "cuda",
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
  if (!answer) return f;
  const ChildResult& r = *answer;
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

}  // namespace dlready
