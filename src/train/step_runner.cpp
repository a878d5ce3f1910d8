#include "train/step_runner.hpp"

#include "torch_runtime/cuda_support.hpp"

namespace dlready {

StepRunner::StepRunner(bool fused, AmpMode amp, const torch::Device& device, const ReferenceModel& model,
                       RunState& state, Hooks hooks)
    : amp_(amp), device_(device), model_(model), state_(state), hooks_(std::move(hooks)) {
  if (fused) {
    fused_ = FusedMlpStep::bind(state.params);
    if (!fused_) throw std::invalid_argument("the fused step needs SimpleNet's parameters (fc1, fc2)");
  }
}

std::pair<torch::Tensor, torch::Tensor> StepRunner::compute(const torch::Tensor& x, const torch::Tensor& y,
                                                            std::vector<torch::Tensor>& g) {
  if (fused_) return fused_->run(x, y, g);
  for (auto& [name, p] : state_.params) p.mutable_grad() = torch::Tensor();
  torch::Tensor z, loss;
  {
    AutocastGuard autocast(device_, amp_);
    z = model_.forward(x);
    loss = torch::nn::functional::cross_entropy(z, y);  // autocast runs it in fp32
  }
  (state_.scaler ? state_.scaler->scale(loss) : loss).backward();
  g.clear();
  for (auto& [name, p] : state_.params) g.push_back(p.grad());
  torch::NoGradGuard ng;
  return {loss.detach(), z.argmax(1).eq(y).sum()};
}

std::pair<torch::Tensor, torch::Tensor> StepRunner::run_micro_batches(const torch::Tensor& x, const torch::Tensor& y,
                                                                      int64_t bs, int64_t chunk) {
  std::vector<torch::Tensor> acc, g;
  torch::Tensor loss_acc, ok_acc;
  for (int64_t b = 0; b < bs; b += chunk) {
    int64_t c = std::min(chunk, bs - b);
    if (hooks_.before_step) hooks_.before_step(state_.global_step, c);
    auto [l, k] = compute(x.narrow(0, b, c), y.narrow(0, b, c), g);
    torch::NoGradGuard ng;
    double w = static_cast<double>(c) / static_cast<double>(bs);
    if (acc.empty()) {
      for (auto& t : g) acc.push_back(t.mul(w));
      loss_acc = l.mul(w), ok_acc = k;
    } else {
      for (size_t i = 0; i < g.size(); ++i) acc[i].add_(g[i], w);
      loss_acc.add_(l, w), ok_acc.add_(k);
    }
  }
  grads_ = std::move(acc);
  if (micro_ != told_micro_ && hooks_.log) {  // said once, when the split is known to fit
    told_micro_ = micro_;
    hooks_.log("out of memory at a batch of " + std::to_string(bs) + ": emptied the cache and redid the step as " +
               std::to_string(micro_) + " micro-batches of " + std::to_string(chunk) +
               " with gradient accumulation (the same effective batch of " + std::to_string(bs) + "); --batch-size " +
               std::to_string(chunk) + " fits in memory");
  }
  return {loss_acc, ok_acc};
}

std::pair<torch::Tensor, torch::Tensor> StepRunner::run(const torch::Tensor& x, const torch::Tensor& y, int64_t bs) {
  for (;;) {
    try {
      int64_t chunk = (bs + micro_ - 1) / micro_;
      if (chunk < bs) return run_micro_batches(x, y, bs, chunk);
      if (hooks_.before_step) hooks_.before_step(state_.global_step, bs);
      return compute(x, y, grads_);
    } catch (const c10::OutOfMemoryError&) {
      if ((bs + micro_ - 1) / micro_ <= 1) throw;  // not even one sample fits
      micro_ *= 2;
      cuda_empty_cache();
    }
  }
}

}  // namespace dlready
