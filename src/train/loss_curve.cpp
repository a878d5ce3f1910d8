#include "train/loss_curve.hpp"

#include <algorithm>

namespace dlready {

int64_t LossCurve::window_steps(int64_t steps_per_epoch) { return std::max<int64_t>(1, (steps_per_epoch + 99) / 100); }

LossCurve::LossCurve(int64_t steps_per_epoch, int64_t batch_size, int64_t rank_samples, const torch::Device& device)
    : steps_(steps_per_epoch),
      batch_(batch_size),
      samples_(rank_samples),
      every_(window_steps(steps_per_epoch)),
      cumulative_(torch::zeros({steps_per_epoch / window_steps(steps_per_epoch) + 2},
                               torch::TensorOptions().dtype(torch::kFloat).device(device))) {}

void LossCurve::begin(int64_t start_step, const torch::Tensor& loss_sum, std::vector<LossPoint> carried) {
  carried_ = std::move(carried);
  slot_steps_.assign(1, start_step);
  cumulative_.narrow(0, 0, 1).copy_(loss_sum.reshape({1}));
}

void LossCurve::after_step(int64_t step, const torch::Tensor& loss_sum) {
  int64_t done = step + 1;
  if (done % every_ != 0 && done != steps_) return;
  auto slot = static_cast<int64_t>(slot_steps_.size());
  if (slot >= cumulative_.size(0)) return;  // cannot happen: one slot per window plus the start
  cumulative_.narrow(0, slot, 1).copy_(loss_sum.reshape({1}));
  slot_steps_.push_back(done);
}

int64_t LossCurve::samples_through(int64_t steps) const { return std::min(samples_, steps * batch_); }

std::vector<LossPoint> LossCurve::points() const {
  std::vector<LossPoint> out = carried_;
  if (slot_steps_.size() < 2) return out;
  auto host = cumulative_.narrow(0, 0, static_cast<int64_t>(slot_steps_.size())).to(torch::kCPU, torch::kDouble);
  auto sums = host.accessor<double, 1>();
  for (size_t i = 1; i < slot_steps_.size(); ++i) {
    auto n = samples_through(slot_steps_[i]) - samples_through(slot_steps_[i - 1]);
    if (n > 0) out.push_back({slot_steps_[i], (sums[static_cast<int64_t>(i)] - sums[static_cast<int64_t>(i) - 1]) / static_cast<double>(n)});
  }
  return out;
}

}  // namespace dlready
