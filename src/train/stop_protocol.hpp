// A stop request (Ctrl-C, SIGTERM) ends the run at a step boundary with a checkpoint. Data-parallel
// ranks must stop at the same step: each adds its own request to the gradient all-reduce as one more
// value, and every rank reads the mean at the same steps; at an epoch's end the request travels with
// the metric sums.
#pragma once
#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

#include "torch_runtime/collectives.hpp"

namespace dlready {

class StopProtocol {
 public:
  StopProtocol(std::function<bool()> requested, const DataParallel& dp, const torch::TensorOptions& counters);

  // Around the gradient all-reduce of a data-parallel step: the request rides along as one value.
  void append_request(std::vector<torch::Tensor>& grads);
  void remove_request(std::vector<torch::Tensor>& grads);
  // After step `global_step` (not the epoch's last): whether every rank stops here.
  bool stop_now(int64_t global_step);
  // At the epoch's end: sums the epoch's counters over the ranks in place and says whether every
  // rank stops after this epoch.
  bool sum_counters_and_stop(torch::Tensor& loss_sum, torch::Tensor& correct);

 private:
  static constexpr int64_t kPollSteps = 8;  // a read of the flag waits for the device: not every step
  bool requested() const { return requested_ && requested_(); }
  std::function<bool()> requested_;
  const DataParallel& dp_;
  torch::Tensor flag_;
};

// "stopped by a signal at epoch 2, step 40 of 938; the checkpoint is saved: ..."
std::string interrupted_message(int epoch, int64_t step_in_epoch, int64_t steps_per_epoch);

}  // namespace dlready
