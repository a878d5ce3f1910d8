// The launch-bound floor of a CUDA-graph training step: a replayed graph of as many near-empty
// kernels (a one-element add each) as the real step has. No step of that many kernels can be
// faster, so `epoch time / (steps x floor)` says how far the step is from launch-bound.
#pragma once
#include <torch/torch.h>

#include <string>

#include "torch_runtime/measure.hpp"

namespace dlready {

struct LaunchFloor {
  std::string error;       // why it could not be measured (not CUDA, capture failed, ...)
  int64_t kernels = 0;     // kernels per replayed graph
  Timing replay;           // seconds per replay of the whole graph
  double per_kernel_us = 0;
  bool verified = false;   // the counter the kernels increment holds kernels x replays
};

LaunchFloor measure_launch_floor(const torch::Device& d, int64_t kernels, const Recipe& recipe);

}  // namespace dlready
