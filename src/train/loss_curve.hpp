// The training loss every few steps, so that a one-epoch run has a curve too (the tutorial's
// script prints the loss only once per epoch). Window ends are copied on the device without a
// sync; the host reads them all at once (at a checkpoint, at the epoch's end, for TensorBoard).
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "formats/metrics.hpp"

namespace dlready {

class LossCurve {
 public:
  // About 100 windows per epoch.
  static int64_t window_steps(int64_t steps_per_epoch);

  // `rank_samples`: this rank's samples per epoch (the last batch may be short).
  LossCurve(int64_t steps_per_epoch, int64_t batch_size, int64_t rank_samples, const torch::Device& device);

  // At the first step an epoch (or a resumed run) trains: `carried` are the windows done before.
  void begin(int64_t start_step, const torch::Tensor& loss_sum, std::vector<LossPoint> carried);
  // After step `step` (0-based in the epoch): at a window's end, keeps a copy of loss_sum.
  void after_step(int64_t step, const torch::Tensor& loss_sum);
  // Every finished window so far (reads the device once).
  [[nodiscard]] std::vector<LossPoint> points() const;
  int64_t every() const { return every_; }

 private:
  int64_t samples_through(int64_t steps) const;
  int64_t steps_, batch_, samples_, every_;
  torch::Tensor cumulative_;         // slot 0: at begin; slot i: at the i-th window's end since
  std::vector<int64_t> slot_steps_;  // the steps done when each slot was taken
  std::vector<LossPoint> carried_;
};

}  // namespace dlready
