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
// The same, with the images' bytes handed over: on the CPU they become the tensors' storage (no
// copy of ~55 MB, and no 13,000 fresh pages to fault in); `ds` keeps its dimensions, labels and
// paths, and its images' data is left empty.
TensorData to_tensors_taking_images(MnistDataset& ds, int limit_train, const torch::Device& device);

// The tutorials' normalisation (0.1307, 0.3081) applied to a uint8 batch: float [B, 784].
torch::Tensor normalize_batch(const torch::Tensor& x_u8);

// One CPU training batch gathered into buffers kept across steps: the rows `idx` of the uint8
// images, normalised as normalize_batch does (the same float operations, so the same bits), and
// their labels — one pass instead of index_select, a conversion and two arithmetic passes (and
// their allocations) per step. Out-of-range indices throw std::out_of_range. The next batch's rows
// (`next`, `next_n`; none at an epoch's end) are asked into the cache while this one trains: they
// are 64 random rows of a 47 MB array, a cache miss each.
class CpuBatchGatherer {
 public:
  std::pair<torch::Tensor, torch::Tensor> gather(const torch::Tensor& images_u8, const torch::Tensor& labels,
                                                 const int64_t* idx, int64_t n, const int64_t* next = nullptr,
                                                 int64_t next_n = 0);

 private:
  torch::Tensor x_, y_;
};

// Seeded shuffling that does not depend on LibTorch's RNG: epoch e of seed s is always the same
// order, so a resumed run replays exactly the batches the interrupted one would have seen.
std::vector<int64_t> epoch_permutation(size_t n, unsigned long long seed, int epoch);

// The samples rank `rank` of `world` trains on, in order, for one epoch's permutation: every
// world-th sample, padded with its start to a multiple of the world size (like DistributedSampler),
// so a step of N ranks at batch b covers the same samples as one rank at batch N*b.
std::vector<int64_t> rank_shard(const std::vector<int64_t>& permutation, int rank, int world);

}  // namespace dlready
