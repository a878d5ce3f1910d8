// The CUDA driver API probe on Linux: libcuda.so.1 loaded and cuInit called in a forked child
// (probe/driver_children.hpp: the calls and the answer), which reports the driver version, cuInit's
// result and every device.
#include <cstdlib>
#include <string>

#include "probe/linux/child_wire.hpp"
#include "probe/linux/driver_api.hpp"

namespace dlready {

DriverApiFacts probe_driver_api(const RootFs& fs, const LibraryLocation& libcuda, const EnvFacts& env,
                                int timeout_ms, const CaptureManifest* replay) {
  if (!libcuda.path) return {};
  std::string host = fs.host(fs.resolve(*libcuda.path).value_or(*libcuda.path));
  auto answer = run_driver_child(
      fs, replay, "cuda",
      [&](const Emit& emit) {
        for (const char* k : {"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER"}) {
          if (auto v = env.get(k))
            ::setenv(k, v->c_str(), 1);
          else
            ::unsetenv(k);
        }
        void* lib = open_library(host, emit);
        return lib ? cuda_driver_calls(dlsym_lookup(lib), emit) : 3;
      },
      timeout_ms);
  DriverApiFacts f = answer ? driver_api_from(*answer) : DriverApiFacts{};
  f.library = *libcuda.path;
  return f;
}

}  // namespace dlready
