// One training step of the tutorials' SimpleNet written out by hand: the forward pass, the exact
// backward ops autograd would run, and (by the caller) the fused Adam update — about a third of
// the ATen calls of the autograd loop, which is what bounds a batch-64 step on a CPU.
#pragma once
#include <torch/torch.h>

#include <optional>
#include <utility>
#include <vector>

#include "train/model.hpp"

namespace dlready {

class FusedMlpStep {
 public:
  // Binds SimpleNet's parameters by name (fc1.weight, fc1.bias, fc2.weight, fc2.bias); nullopt
  // when the model is not SimpleNet.
  static std::optional<FusedMlpStep> bind(const NamedTensors& params);

  // Returns the mean loss (0-dim) and the number of correct predictions; fills `grads` in the
  // parameters' order. Runs without autograd.
  std::pair<torch::Tensor, torch::Tensor> run(const torch::Tensor& x, const torch::Tensor& y,
                                              std::vector<torch::Tensor>& grads) const;

 private:
  FusedMlpStep() = default;
  torch::Tensor w1_, b1_, w2_, b2_;
  torch::Tensor one_;  // the gradient of the mean loss
  // Where each parameter sits in the model's parameter list (grads follow that order).
  size_t at_w1_ = 0, at_b1_ = 0, at_w2_ = 0, at_b2_ = 0;
};

}  // namespace dlready
