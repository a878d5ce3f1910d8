#include "bench/launch_floor.hpp"

#include "torch_runtime/cuda_graph.hpp"
#include "torch_runtime/cuda_support.hpp"

namespace dlready {

LaunchFloor measure_launch_floor(const torch::Device& d, int64_t kernels, const Recipe& recipe) {
  LaunchFloor out;
  out.kernels = kernels;
  if (!d.is_cuda()) {
    out.error = "the launch-bound floor is a CUDA graph measurement: run it with --device cuda";
    return out;
  }
  if (kernels < 1) {
    out.error = "the floor needs a kernel count of at least 1 (--kernels)";
    return out;
  }
  torch::DeviceGuard guard(d);
  // int64: the count stays exact however many replays the recipe takes.
  auto counter = torch::zeros({1}, torch::TensorOptions().dtype(torch::kLong).device(d));
  CudaGraphStep graph;
  auto captured = graph.capture([&] {
    for (int64_t k = 0; k < kernels; ++k) counter.add_(1);
  });
  if (!captured) {
    out.error = "could not capture the graph of empty kernels: " + captured.error();
    return out;
  }
  if (graph.kernel_nodes() >= 0 && graph.kernel_nodes() != kernels) {
    out.error = "the captured graph has " + std::to_string(graph.kernel_nodes()) + " kernels, not " +
                std::to_string(kernels) + ": this LibTorch's add_ is not one kernel";
    return out;
  }
  int64_t replays = 0;
  out.replay = measure([&] { graph.replay(), ++replays; }, [&] { synchronize(d); }, recipe);
  out.per_kernel_us = out.replay.median_s / static_cast<double>(kernels) * 1e6;
  out.verified = counter.item<int64_t>() == kernels * replays;
  if (!out.verified) out.error = "the counter does not hold kernels x replays: replays did not all run";
  return out;
}

}  // namespace dlready
