// Driver API (libcuda.so.1) and NVML (libnvidia-ml.so.1) probes, each in a child process.
#pragma once
#include "facts/capture_manifest.hpp"
#include "facts/facts.hpp"
#include "os/root_fs.hpp"

namespace dlready {

// The child sees the CUDA_* variables of `env` (the environment the facts describe), so the
// driver answers for the same CUDA_VISIBLE_DEVICES the rules read. `replay`: a capture's manifest,
// whose recorded answers stand in for the children (probe/linux/child_wire.hpp).
DriverApiFacts probe_driver_api(const RootFs& fs, const LibraryLocation& libcuda, const EnvFacts& env,
                                int timeout_ms, const CaptureManifest* replay = nullptr);
NvmlFacts probe_nvml(const RootFs& fs, const LibraryLocation& libnvml, int timeout_ms,
                     const CaptureManifest* replay = nullptr);

}  // namespace dlready
