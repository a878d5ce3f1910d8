// Models of the reference job with named parameters, and the optimizers that own their state.
#pragma once
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "module_api/options.hpp"

namespace dlready {

using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

// The tutorials' SimpleNet: 784 -> 256 -> ReLU -> 10.
struct SimpleNetImpl : torch::nn::Module {
  SimpleNetImpl();
  torch::Tensor forward(const torch::Tensor& x);  // x: [B, 784] float
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(SimpleNet);

// A small conv net: two 3x3 conv + max-pool blocks, then 128 hidden units.
struct SmallCnnImpl : torch::nn::Module {
  SmallCnnImpl();
  torch::Tensor forward(const torch::Tensor& x);  // x: [B, 784] float, reshaped to [B, 1, 28, 28]
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(SmallCnn);

// The model a run trains: the module (train/eval mode, device) and its forward pass.
struct ReferenceModel {
  std::shared_ptr<torch::nn::Module> module;
  std::function<torch::Tensor(const torch::Tensor&)> forward;
  NamedTensors parameters() const;  // in registration order, named as PyTorch names them
};
// SimpleNet or the CNN, initialised from LibTorch's RNG (seed it first), on `device`.
ReferenceModel make_model(ModelKind kind, const torch::Device& device);

// The matrix-multiply FLOPs of one training step per sample of a stack of linear layers: 2*in*out
// forward, as many for the weight gradient, and as many for the input gradient of every layer but
// the first (the batch itself needs no gradient). Biases, activations and the loss are left out:
// with the GEMM peak this is the step's compute bound. nullopt for a model with other layers (convs).
std::optional<double> linear_step_flops_per_sample(const NamedTensors& params);

// Optimizer state keyed by parameter name so checkpoints survive LibTorch version changes.
class Optimizer {
 public:
  Optimizer(OptimizerKind kind, double lr, double momentum, const NamedTensors& params);
  // One update from the given gradients (same order as the parameters). `found_inf` (fp16's loss
  // scaler: 1 = the gradients overflowed) skips the update on the device, without a host sync, as
  // torch.optim's fused optimizers do under GradScaler: parameters, moments and step counts stay.
  void step(const std::vector<torch::Tensor>& grads, const torch::Tensor* found_inf = nullptr);
  NamedTensors state() const;                 // "exp_avg/<param>", "exp_avg_sq/<param>", "step/<param>", ...
  void load_state(const NamedTensors& saved);  // throws std::runtime_error naming what is missing
  OptimizerKind kind() const { return kind_; }

 private:
  OptimizerKind kind_;
  double lr_, momentum_;
  std::vector<std::string> names_;
  std::vector<torch::Tensor> params_, exp_avg_, exp_avg_sq_, steps_, momentum_buf_;
};

}  // namespace dlready
