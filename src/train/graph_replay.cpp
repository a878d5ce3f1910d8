#include "train/graph_replay.hpp"

#include "train/batches.hpp"

namespace dlready {

std::optional<std::string> GraphReplay::unsupported(const torch::Device& device, bool fused, int world) {
  if (!device.is_cuda()) return "needs a CUDA device";
  if (!fused) return "captures the fused SimpleNet step only (--model mlp, --amp off, engine fused)";
  if (world > 1) return "is for one process (collectives are not captured)";
  return std::nullopt;
}

GraphReplay::GraphReplay(const torch::Device& device, int64_t batch_size, std::function<void(const std::string&)> log)
    : idx_static_(torch::zeros({batch_size}, torch::TensorOptions().dtype(torch::kLong).device(device))),
      batch_size_(batch_size),
      log_(std::move(log)) {}

bool GraphReplay::capture(int64_t bs, const torch::Tensor& train_x, const torch::Tensor& train_y,
                          const FusedMlpStep& fused, RunState& state) {
  auto captured = graph_.capture([&] {
    torch::NoGradGuard ng;
    auto xs = normalize_batch(train_x.index_select(0, idx_static_));
    auto ys = train_y.index_select(0, idx_static_);
    std::vector<torch::Tensor> g;
    auto [l, k] = fused.run(xs, ys, g);
    state.optim.step(g);
    state.loss_sum.add_(l, static_cast<double>(bs));
    state.correct.add_(k);
  });
  if (!captured) {
    log_("--cuda-graphs: capture failed (" + captured.error() + "): running eagerly");
    failed_ = true;
    return false;
  }
  kernels_ = graph_.kernel_nodes();
  std::string kernels = kernels_ >= 0 ? " (" + std::to_string(kernels_) + " kernels)" : "";
  log_("--cuda-graphs: step captured after " + std::to_string(eager_steps_) + " eager steps" + kernels +
       "; replaying it");
  return true;
}

bool GraphReplay::step(const torch::Tensor& perm, int64_t begin, int64_t bs, const torch::Tensor& train_x,
                       const torch::Tensor& train_y, const FusedMlpStep& fused, RunState& state) {
  bool can_replay = !failed_ && bs == batch_size_ && (graph_.ready() || eager_steps_ >= kEagerBeforeCapture);
  if (can_replay) {
    idx_static_.copy_(perm.narrow(0, begin, bs), /*non_blocking=*/true);
    if (graph_.ready() || capture(bs, train_x, train_y, fused, state)) {
      graph_.replay();
      return true;
    }
  }
  ++eager_steps_;
  return false;
}

}  // namespace dlready
