#include "train/cuda_graph_step.hpp"

#include <torch/torch.h>

#include "core/text.hpp"

#if __has_include(<ATen/cuda/CUDAGraph.h>) && __has_include(<cuda_runtime_api.h>)
#define DLREADY_CUDA_GRAPHS 1
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#else
#define DLREADY_CUDA_GRAPHS 0
#endif

namespace dlready {

struct CudaGraphStep::Impl {
#if DLREADY_CUDA_GRAPHS
  at::cuda::CUDAGraph graph;
#endif
  bool ready = false;
};

CudaGraphStep::CudaGraphStep() : impl_(std::make_unique<Impl>()) {}
CudaGraphStep::~CudaGraphStep() = default;
bool CudaGraphStep::ready() const { return impl_->ready; }

std::string CudaGraphStep::capture(const std::function<void()>& body) {
#if DLREADY_CUDA_GRAPHS
  try {
    torch::cuda::synchronize();
    auto side = c10::cuda::getStreamFromPool();
    {
      c10::cuda::CUDAStreamGuard guard(side);
      impl_->graph.capture_begin();
      body();
      impl_->graph.capture_end();
    }
    torch::cuda::synchronize();
    impl_->ready = true;
    return "";
  } catch (const std::exception& e) {
    return first_line(e.what());
  }
#else
  (void)body;
  return "this build has no CUDA graph headers";
#endif
}

void CudaGraphStep::replay() {
#if DLREADY_CUDA_GRAPHS
  impl_->graph.replay();
#endif
}

}  // namespace dlready
