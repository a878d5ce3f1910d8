// --cuda-graphs: the whole training step (gather, forward, backward, optimizer, metric sums)
// captured once as a CUDA graph and replayed, so a batch-64 step costs one graph launch instead
// of dozens of kernel launches. Also the launch-bound floor benchmark's graph of empty kernels.
// In the CPU module (or built without CUDA headers) capture always reports why not (cuda_absent.cpp).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/status.hpp"

namespace dlready {

class CudaGraphStep {
 public:
  CudaGraphStep();
  ~CudaGraphStep();
  CudaGraphStep(const CudaGraphStep&) = delete;
  CudaGraphStep& operator=(const CudaGraphStep&) = delete;

  // Captures `body` (which must only touch static tensors) on a side stream; fails saying why
  // capture was not possible. The body has not run either way.
  Status capture(const std::function<void()>& body);
  void replay();  // runs the captured step on the current stream
  bool ready() const;
  // Kernel launches in the captured graph (what the launch-bound floor is measured with);
  // -1 when this LibTorch cannot show the graph (before 2.8: no keep_graph).
  int64_t kernel_nodes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dlready
