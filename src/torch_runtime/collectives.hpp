// Data-parallel training as the trainer sees it: the rank, the world size and three collectives,
// as functions so the trainer needs no c10d (distributed/data_parallel.hpp provides them). Empty
// for one process.
#pragma once
#include <torch/torch.h>

#include <functional>
#include <vector>

namespace dlready {

struct DataParallel {
  int rank = 0, world = 1;
  std::function<void(std::vector<torch::Tensor>&)> broadcast;  // from rank 0, in place
  std::function<void(std::vector<torch::Tensor>&)> average;    // gradients: mean over ranks, in place
  std::function<void(std::vector<torch::Tensor>&)> sum;        // metric counters: sum over ranks, in place
};

}  // namespace dlready
