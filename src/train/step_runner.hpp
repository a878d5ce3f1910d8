// Forward and backward of one batch, by the engine the run uses: the fused SimpleNet step, or
// autograd (under autocast with --amp, the loss scaled under fp16). After an out-of-memory error
// the cache is emptied and the step redone as micro-batches whose weighted gradients add up to the
// full batch's (gradient accumulation); the split then sticks for the rest of the run.
#pragma once
#include <torch/torch.h>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "module_api/options.hpp"
#include "train/fused_mlp_step.hpp"
#include "train/model.hpp"
#include "train/run_state.hpp"

namespace dlready {

class StepRunner {
 public:
  struct Hooks {
    std::function<void(const std::string&)> log;
    std::function<void(int64_t step, int64_t batch)> before_step;  // may throw c10::OutOfMemoryError
  };
  // `fused`: the fused step (SimpleNet only, fp32); else autograd through `model` under `amp`.
  StepRunner(bool fused, AmpMode amp, const torch::Device& device, const ReferenceModel& model, RunState& state,
             Hooks hooks);

  // One step of the batch (x, y) of `bs` samples: the mean loss and the correct count; the
  // gradients are in grads() (times the loss scale under fp16).
  std::pair<torch::Tensor, torch::Tensor> run(const torch::Tensor& x, const torch::Tensor& y, int64_t bs);
  std::vector<torch::Tensor>& grads() { return grads_; }
  int micro_batches() const { return micro_; }
  // The fused step, when the run uses it (the CUDA graph captures it).
  const FusedMlpStep* fused() const { return fused_ ? &*fused_ : nullptr; }

 private:
  std::pair<torch::Tensor, torch::Tensor> compute(const torch::Tensor& x, const torch::Tensor& y,
                                                  std::vector<torch::Tensor>& g);
  std::pair<torch::Tensor, torch::Tensor> run_micro_batches(const torch::Tensor& x, const torch::Tensor& y,
                                                            int64_t bs, int64_t chunk);

  std::optional<FusedMlpStep> fused_;
  AmpMode amp_;
  torch::Device device_;
  const ReferenceModel& model_;
  RunState& state_;
  Hooks hooks_;
  std::vector<torch::Tensor> grads_;
  int micro_ = 1, told_micro_ = 1;
};

}  // namespace dlready
