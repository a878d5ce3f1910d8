// The dataset as tensors on the training device, and the batches of each epoch.
#pragma once
#include <torch/torch.h>

#include <vector>

#include "data/idx.hpp"

namespace dlready {

// images [N, 784] uint8 (held once, normalised per batch), labels [N] int64.
struct TensorData {
  torch::Tensor train_x, train_y, test_x, test_y;
};
TensorData to_tensors(const MnistDataset& ds, int limit_train, const torch::Device& device);

// The tutorials' normalisation (0.1307, 0.3081) applied to a uint8 batch: float [B, 784].
torch::Tensor normalize_batch(const torch::Tensor& x_u8);

// Seeded shuffling that does not depend on LibTorch's RNG: epoch e of seed s is always the same
// order, so a resumed run replays exactly the batches the interrupted one would have seen.
std::vector<int64_t> epoch_permutation(size_t n, unsigned long long seed, int epoch);

// The samples rank `rank` of `world` trains on, in order, for one epoch's permutation: every
// world-th sample, padded with its start to a multiple of the world size (like DistributedSampler),
// so a step of N ranks at batch b covers the same samples as one rank at batch N*b.
std::vector<int64_t> rank_shard(const std::vector<int64_t>& permutation, int rank, int world);

}  // namespace dlready
