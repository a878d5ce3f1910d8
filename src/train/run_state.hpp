// What a training run carries from step to step: the model's parameters, the optimizer, the fp16
// loss scaler, the epoch's counters and the position in the run. The parts of the loop (resume,
// step, checkpoint, epoch record) read and update it; nothing else is shared between them.
#pragma once
#include <torch/torch.h>

#include <optional>
#include <vector>

#include "train/amp.hpp"
#include "formats/metrics.hpp"
#include "train/model.hpp"

namespace dlready {

struct RunState {
  RunState(const NamedTensors& parameters, Optimizer optimizer, const torch::Device& device)
      : params(parameters),
        optim(std::move(optimizer)),
        loss_sum(torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat).device(device))),
        correct(torch::zeros({}, loss_sum.options())) {}

  NamedTensors params;
  Optimizer optim;
  std::optional<LossScaler> scaler;  // fp16 only
  // This process's loss (summed over samples) and correct predictions in the current epoch.
  torch::Tensor loss_sum, correct;
  int start_epoch = 0;
  int64_t start_step = 0;   // in start_epoch (a mid-epoch checkpoint)
  int64_t global_step = 0;  // steps of this rank since the run began
  double carried_seconds = 0;  // time the interrupted epoch had already run
  std::vector<LossPoint> carried_curve;  // the interrupted epoch's loss curve so far
  std::vector<EpochMetrics> history;
  bool resumed = false;
  int saved_threads = 0;  // the intra-op threads the checkpoint was made with (0: not recorded)

  // Every parameter finite: a checkpoint is only written of such a state (a step can turn the
  // parameters to inf/NaN before any loss shows it).
  bool params_finite() const;
};

}  // namespace dlready
