// Mixed precision for the training loop: autocast as a scope, and fp16's dynamic loss scaling on
// ATen's own AMP kernels (_amp_foreach_non_finite_check_and_unscale_, _amp_update_scale_), the
// ones torch.amp.GradScaler runs. LibTorch API differences between releases are handled in
// amp.cpp and nowhere else.
#pragma once
#include <torch/torch.h>

#include <optional>
#include <string>
#include <vector>

#include "module_api/options.hpp"

namespace dlready {

// Autocast on `device` for the guard's lifetime (nothing when mode is off); restores the previous
// state and clears autocast's weight cache when the outermost guard ends.
class AutocastGuard {
 public:
  AutocastGuard(const torch::Device& device, AmpMode mode);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  bool active_ = false;
  at::DeviceType type_ = at::kCPU;
  bool prev_enabled_ = false;
  at::ScalarType prev_dtype_ = at::kFloat;
};

// Dynamic loss scaling: multiply the loss by `scale`; after backward, unscale the gradients and
// look for inf/NaN in one fused pass; skip the step and shrink the scale if any, grow it after
// `growth_interval` good steps in a row.
class LossScaler {
 public:
  struct Options {
    double init_scale = 65536.0, growth_factor = 2.0, backoff_factor = 0.5;
    int64_t growth_interval = 2000;
  };
  LossScaler(const torch::Device& device, Options o);
  torch::Tensor scale(const torch::Tensor& loss) const { return loss * scale_; }
  // Unscales the gradients in place and updates the scale, all on the device: no host sync, so it
  // can run inside a captured CUDA graph. Returns the step's found-inf flag (1: an inf or NaN, skip
  // the step; Optimizer::step takes it and skips on the device).
  const torch::Tensor& unscale_and_update_on_device(std::vector<torch::Tensor>& grads);
  // The same, answered on the host: true when every gradient is finite (one host sync).
  bool unscale_and_update(std::vector<torch::Tensor>& grads);
  double current_scale() const { return scale_.item<double>(); }
  int64_t skipped_steps() const { return static_cast<int64_t>(skipped_total_.item<double>()); }
  // Checkpoint state: {scale, growth tracker, steps skipped so far}: a resumed run goes on with the
  // scale it had reached, not 65536 again (which would overflow and skip its first steps).
  std::vector<std::pair<std::string, torch::Tensor>> state() const;
  void load_state(const std::vector<std::pair<std::string, torch::Tensor>>& s);

 private:
  Options o_;
  torch::Tensor scale_, growth_tracker_, found_inf_, skipped_total_;
};

}  // namespace dlready
