// Driver API (libcuda.so.1) and NVML (libnvidia-ml.so.1) probes, each in a child process.
#pragma once
#include "core/facts.hpp"
#include "core/root_fs.hpp"

namespace dlready {

DriverApiFacts probe_driver_api(const RootFs& fs, const LibraryLocation& libcuda, int timeout_ms);
NvmlFacts probe_nvml(const RootFs& fs, const LibraryLocation& libnvml, int timeout_ms);

}  // namespace dlready
