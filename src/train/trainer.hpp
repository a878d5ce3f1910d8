// The training loop of the reference job, usable from tests without the CLI.
#pragma once
#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

#include "data/idx.hpp"
#include "train/metrics.hpp"
#include "train/train_options.hpp"

namespace dlready {

// The dataset as tensors on the training device: images [N, 784] uint8 (held once, normalised per
// batch), labels [N] int64.
struct TensorData {
  torch::Tensor train_x, train_y, test_x, test_y;
};
TensorData to_tensors(const MnistDataset& ds, int limit_train, const torch::Device& device);

// The seeds' normalisation (0.1307, 0.3081) applied to a uint8 batch: float [B, 784].
torch::Tensor normalize_batch(const torch::Tensor& x_u8);

// Seeded shuffling that does not depend on LibTorch's RNG: epoch e of seed s is always the same
// order, so a resumed run replays exactly the batches the interrupted one would have seen.
std::vector<int64_t> epoch_permutation(size_t n, unsigned long long seed, int epoch);

struct TrainResult {
  int status = kTrainOk;
  std::string error;
  std::vector<EpochMetrics> history;
  std::vector<int64_t> confusion;  // 10x10, row = true class, column = predicted
  double test_acc = 0, test_loss = 0, train_seconds = 0;
  bool resumed = false;
  int micro_batches = 1;       // > 1 after an out-of-memory: steps run as this many micro-batches
  double loss_scale = 0;       // fp16: the final loss scale
  int64_t skipped_steps = 0;   // fp16: steps skipped for inf/NaN gradients
  int64_t steps_per_epoch = 0;  // of this process
  int64_t graph_kernels = 0;   // --cuda-graphs: kernels in the captured step (0: not captured, -1: unknown)
};

struct TrainHooks {
  std::function<void(const std::string&)> log;  // human-readable lines
  std::function<void(int epoch, size_t done, size_t total, double samples_per_s)> progress;
  std::function<void(int64_t step, float loss)> step_loss;  // tests: the loss trajectory (syncs!)
  // Called before each forward pass with the (micro-)batch size about to run. A test seam: it may
  // throw c10::OutOfMemoryError to exercise the recovery at the step boundary.
  std::function<void(int64_t step, int64_t batch)> before_step;
  // Polled between steps: true asks for a checkpoint and a stop (kTrainInterrupted), e.g. Ctrl-C.
  std::function<bool()> stop_requested;
};

// Data-parallel training (see dist/data_parallel.hpp): functions, so the trainer needs no c10d.
// Empty for one process. Rank r trains on every world-th sample of each epoch's permutation
// (padded with its start to a multiple of the world size, like DistributedSampler), so a step of
// N ranks at batch b covers the same samples as one rank at batch N*b.
struct DataParallel {
  int rank = 0, world = 1;
  std::function<void(std::vector<torch::Tensor>&)> broadcast;  // from rank 0, in place
  std::function<void(std::vector<torch::Tensor>&)> average;    // gradients: mean over ranks, in place
  std::function<void(std::vector<torch::Tensor>&)> sum;        // metric counters: sum over ranks, in place
};

// The samples rank `rank` of `world` trains on, in order, for one epoch's permutation.
std::vector<int64_t> rank_shard(const std::vector<int64_t>& permutation, int rank, int world);

TrainResult train(const TrainOptions& opt, const TensorData& data, const torch::Device& device, const TrainHooks& hooks,
                  const DataParallel& dp = {});

}  // namespace dlready
