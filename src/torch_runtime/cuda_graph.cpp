// The CUDA half of cuda_graph.hpp (cuda_absent.cpp has the other module's).
#include "torch_runtime/cuda_graph.hpp"

#include <torch/torch.h>

#include <vector>

#include "core/text.hpp"
#include "torch_runtime/torch_versions.hpp"

#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

// With keep_graph the captured cudaGraph_t stays, so its kernel nodes can be counted; older
// LibTorch destroys it in capture_end and the count is reported as unknown.
#define DLREADY_KEEP_GRAPH DLREADY_CUDA_GRAPH_KEEP

namespace dlready {

struct CudaGraphStep::Impl {
#if DLREADY_KEEP_GRAPH
  at::cuda::CUDAGraph graph{/*keep_graph=*/true};
#else
  at::cuda::CUDAGraph graph;
#endif
  bool ready = false;
  int64_t kernels = -1;
};

CudaGraphStep::CudaGraphStep() : impl_(std::make_unique<Impl>()) {}
CudaGraphStep::~CudaGraphStep() = default;
bool CudaGraphStep::ready() const { return impl_->ready; }
int64_t CudaGraphStep::kernel_nodes() const { return impl_->kernels; }

#if DLREADY_KEEP_GRAPH
namespace {
int64_t count_kernel_nodes(cudaGraph_t g) {
  size_t n = 0;
  if (cudaGraphGetNodes(g, nullptr, &n) != cudaSuccess) return -1;
  std::vector<cudaGraphNode_t> nodes(n);
  if (n > 0 && cudaGraphGetNodes(g, nodes.data(), &n) != cudaSuccess) return -1;
  int64_t kernels = 0;
  for (size_t i = 0; i < n; ++i) {
    cudaGraphNodeType type{};
    if (cudaGraphNodeGetType(nodes[i], &type) != cudaSuccess) return -1;
    if (type == cudaGraphNodeTypeKernel) ++kernels;
  }
  return kernels;
}
}  // namespace
#endif

Status CudaGraphStep::capture(const std::function<void()>& body) {
  try {
    torch::cuda::synchronize();
    auto side = c10::cuda::getStreamFromPool();
    {
      c10::cuda::CUDAStreamGuard guard(side);
      impl_->graph.capture_begin();
      body();
      impl_->graph.capture_end();
    }
#if DLREADY_KEEP_GRAPH
    impl_->kernels = count_kernel_nodes(impl_->graph.raw_cuda_graph());
    impl_->graph.instantiate();  // keep_graph: capture_end left instantiation to us
#endif
    torch::cuda::synchronize();
    impl_->ready = true;
    return {};
  } catch (const std::exception& e) {
    return Status::failure(first_line(e.what()));
  }
}

void CudaGraphStep::replay() { impl_->graph.replay(); }

}  // namespace dlready
