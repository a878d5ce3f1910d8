// The NVML probe on Linux: libnvidia-ml.so.1 loaded and initialised in a forked child
// (probe/driver_children.hpp: the calls and the answer), which reports the driver version and every
// device.
#include <string>

#include "probe/linux/child_wire.hpp"
#include "probe/linux/driver_api.hpp"

namespace dlready {

NvmlFacts probe_nvml(const RootFs& fs, const LibraryLocation& libnvml, int timeout_ms, const CaptureManifest* replay) {
  if (!libnvml.path) return {};
  std::string host = fs.host(fs.resolve(*libnvml.path).value_or(*libnvml.path));
  auto answer = run_driver_child(
      fs, replay, "nvml",
      [&](const Emit& emit) {
        void* lib = open_library(host, emit);
        return lib ? nvml_calls(dlsym_lookup(lib), emit) : 3;
      },
      timeout_ms);
  NvmlFacts f = answer ? nvml_from(*answer) : NvmlFacts{};
  f.library = *libnvml.path;
  return f;
}

}  // namespace dlready
