// The one place that knows which LibTorch API a feature has in which release. The pinned wheel
// and the GPU machine's PyTorch may differ; code branches on these names, never on versions.
#pragma once
#include <torch/version.h>

#define DLREADY_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

// 2.4: the device-generic autocast API (at::autocast::set_autocast_enabled(device_type, ...));
// 2.0-2.3 had per-device functions (set_enabled / set_cpu_enabled, set_autocast_gpu_dtype, ...).
#define DLREADY_AUTOCAST_BY_DEVICE DLREADY_TORCH_AT_LEAST(2, 4)

// 2.8: at::cuda::CUDAGraph(keep_graph) keeps the captured cudaGraph_t (raw_cuda_graph()) and
// leaves instantiate() to the caller; before, capture_end instantiated and destroyed the graph.
#define DLREADY_CUDA_GRAPH_KEEP DLREADY_TORCH_AT_LEAST(2, 8)
