// --cuda-graphs: the fused fp32 step of one process on CUDA, captured after a few eager steps
// (cuBLAS and the allocator warm up there) with the batch gathered on the device inside it, then
// replayed for every full batch: one graph launch per step instead of dozens of kernel launches.
#pragma once
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "torch_runtime/cuda_graph.hpp"
#include "train/fused_mlp_step.hpp"
#include "train/run_state.hpp"

namespace dlready {

class GraphReplay {
 public:
  // Why the graph cannot be used for this run, or nullopt when it can.
  static std::optional<std::string> unsupported(const torch::Device& device, bool fused, int world);

  GraphReplay(const torch::Device& device, int64_t batch_size, std::function<void(const std::string&)> log);

  // Runs the step of the batch at perm[begin, begin + bs) as a replay when it can (capturing it
  // first once enough eager steps ran); false when the caller must run it eagerly.
  bool step(const torch::Tensor& perm, int64_t begin, int64_t bs, const torch::Tensor& train_x,
            const torch::Tensor& train_y, const FusedMlpStep& fused, RunState& state);
  // Kernels in the captured step: 0 not captured, -1 unknown (LibTorch < 2.8).
  int64_t kernels() const { return kernels_; }

 private:
  static constexpr int64_t kEagerBeforeCapture = 3;
  bool capture(int64_t bs, const torch::Tensor& train_x, const torch::Tensor& train_y, const FusedMlpStep& fused,
               RunState& state);

  CudaGraphStep graph_;
  bool failed_ = false;
  torch::Tensor idx_static_;
  int64_t batch_size_, eager_steps_ = 0, kernels_ = 0;
  std::function<void(const std::string&)> log_;
};

}  // namespace dlready
