#include "train/amp.hpp"

#include <ATen/autocast_mode.h>

#include "torch_runtime/torch_versions.hpp"

namespace dlready {

namespace {

bool autocast_enabled(at::DeviceType t) {
#if DLREADY_AUTOCAST_BY_DEVICE
  return at::autocast::is_autocast_enabled(t);
#else
  return t == at::kCUDA ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled();
#endif
}
void set_autocast(at::DeviceType t, bool on, at::ScalarType dtype) {
#if DLREADY_AUTOCAST_BY_DEVICE
  at::autocast::set_autocast_dtype(t, dtype);
  at::autocast::set_autocast_enabled(t, on);
#else
  if (t == at::kCUDA) at::autocast::set_autocast_gpu_dtype(dtype), at::autocast::set_enabled(on);
  else at::autocast::set_autocast_cpu_dtype(dtype), at::autocast::set_cpu_enabled(on);
#endif
}
at::ScalarType autocast_dtype(at::DeviceType t) {
#if DLREADY_AUTOCAST_BY_DEVICE
  return at::autocast::get_autocast_dtype(t);
#else
  return t == at::kCUDA ? at::autocast::get_autocast_gpu_dtype() : at::autocast::get_autocast_cpu_dtype();
#endif
}

}  // namespace

AutocastGuard::AutocastGuard(const torch::Device& device, AmpMode mode) {
  if (mode == AmpMode::off) return;
  active_ = true;
  type_ = device.type();
  prev_enabled_ = autocast_enabled(type_);
  prev_dtype_ = autocast_dtype(type_);
  set_autocast(type_, true, mode == AmpMode::bf16 ? at::kBFloat16 : at::kHalf);
  at::autocast::increment_nesting();
}

AutocastGuard::~AutocastGuard() {
  if (!active_) return;
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  set_autocast(type_, prev_enabled_, prev_dtype_);
}

LossScaler::LossScaler(const torch::Device& device, Options o) : o_(o) {
  auto f = torch::TensorOptions().dtype(torch::kFloat).device(device);
  scale_ = torch::full({1}, o.init_scale, f);
  growth_tracker_ = torch::zeros({1}, f.dtype(torch::kInt));
  found_inf_ = torch::zeros({1}, f);
  skipped_total_ = torch::zeros({1}, f);
}

const torch::Tensor& LossScaler::unscale_and_update_on_device(std::vector<torch::Tensor>& grads) {
  found_inf_.zero_();
  auto inv = scale_.to(torch::kDouble).reciprocal().to(torch::kFloat);
  at::_amp_foreach_non_finite_check_and_unscale_(grads, found_inf_, inv);
  at::_amp_update_scale_(scale_, growth_tracker_, found_inf_, o_.growth_factor, o_.backoff_factor,
                         o_.growth_interval);
  skipped_total_.add_(found_inf_);
  return found_inf_;
}

bool LossScaler::unscale_and_update(std::vector<torch::Tensor>& grads) {
  return unscale_and_update_on_device(grads).item<float>() == 0.0f;
}

std::vector<std::pair<std::string, torch::Tensor>> LossScaler::state() const {
  return {{"amp/scale", scale_}, {"amp/growth_tracker", growth_tracker_.to(torch::kFloat)},
          {"amp/skipped_steps", skipped_total_}};
}

void LossScaler::load_state(const std::vector<std::pair<std::string, torch::Tensor>>& s) {
  for (const auto& [name, t] : s) {
    if (name == "amp/scale") scale_.copy_(t);
    else if (name == "amp/growth_tracker") growth_tracker_.copy_(t.to(torch::kInt));
    else if (name == "amp/skipped_steps") skipped_total_.copy_(t);
  }
}

}  // namespace dlready
