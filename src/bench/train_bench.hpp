// Training step throughput of the reference job (SimpleNet, batch 64, Adam) on one device.
#pragma once
#include <torch/torch.h>

#include <optional>
#include <string>

namespace dlready {

struct TrainBench {
  bool ran = false;
  std::string skipped;  // why it did not run (no data, ...)
  std::string engine;
  int64_t samples = 0;  // per timed epoch
  double samples_per_s = 0, steps_per_s = 0, epoch_seconds = 0;
  double spread_percent = 0;  // (slowest - fastest) / median of the timed epochs
  double test_acc = 0;  // after the timed epochs: proof the steps did real work
  int64_t steps_per_epoch = 0;
  std::optional<double> flops_per_sample;  // the step's matrix multiplies (train/model.hpp)
  int64_t graph_kernels = 0;  // CUDA: kernels of the step captured as a graph (0: none, -1: unknown)
};

// Trains `epochs` epochs on the first `limit` samples (0 = all); the figure is the median epoch
// after the first (warm-up) one. On CUDA the step runs as a CUDA graph (--cuda-graphs).
TrainBench bench_train(const torch::Device& d, const std::string& data_dir, int limit, int epochs);

// The epoch's compute bound: its matrix-multiply FLOPs at the best fp32 GEMM rate measured here.
struct ComputeBound {
  double gflop_per_epoch = 0, gemm_tflops = 0, seconds = 0;
  double epoch_over_bound = 0;  // the measured epoch / the bound
};
std::optional<ComputeBound> compute_bound(const TrainBench& t, std::optional<double> gemm_fp32_tflops);

}  // namespace dlready
