#include "bench/train_bench.hpp"

#include <stdlib.h>

#include <algorithm>

#include "torch_runtime/measure.hpp"
#include "os/posix_fs.hpp"
#include "train/model.hpp"
#include "train/trainer.hpp"

namespace dlready {

TrainBench bench_train(const torch::Device& d, const std::string& data_dir, int limit, int epochs) {
  TrainBench out;
  auto ds = load_mnist(data_dir);
  if (!ds.dataset) {
    out.skipped = ds.error;
    return out;
  }
  char tmpl[] = "/tmp/dlready-bench-XXXXXX";
  if (!::mkdtemp(tmpl)) {
    out.skipped = "cannot create a temporary run directory under /tmp";
    return out;
  }
  TrainOptions o;
  o.epochs = std::max(2, epochs);
  o.limit_train = limit;
  o.out = tmpl;
  o.progress = false;
  o.cuda_graphs = d.is_cuda();  // the fast path a user gets with --cuda-graphs
  auto data = to_tensors_taking_images(*ds.dataset, limit, d);
  auto r = train(o, data, d, {});
  remove_tree(tmpl);
  if (r.status != ExitCode::ok) {
    out.skipped = "training failed: " + r.error;
    return out;
  }
  std::vector<double> secs;
  for (size_t i = 1; i < r.history.size(); ++i) secs.push_back(r.history[i].seconds);
  out.ran = true;
  out.engine = o.model == ModelKind::mlp && o.engine != Engine::autograd ? "fused" : "autograd";
  out.samples = data.train_x.size(0);
  out.epoch_seconds = median(secs);
  if (!secs.empty()) {
    Timing epochs;
    epochs.median_s = out.epoch_seconds;
    epochs.min_s = *std::min_element(secs.begin(), secs.end()), epochs.max_s = *std::max_element(secs.begin(), secs.end());
    out.spread_percent = spread_percent(epochs);
  }
  out.samples_per_s = static_cast<double>(out.samples) / out.epoch_seconds;
  out.steps_per_s = out.samples_per_s / o.batch_size;
  out.test_acc = r.test_acc;
  out.steps_per_epoch = r.steps_per_epoch;
  if (o.model == ModelKind::mlp) {
    torch::NoGradGuard ng;
    out.flops_per_sample = linear_step_flops_per_sample(make_model(o.model, torch::kCPU).parameters());
  }
  out.graph_kernels = r.graph_kernels;
  return out;
}

std::optional<ComputeBound> compute_bound(const TrainBench& t, std::optional<double> gemm_fp32_tflops) {
  if (!t.ran || !t.flops_per_sample || !gemm_fp32_tflops || *gemm_fp32_tflops <= 0 || t.epoch_seconds <= 0)
    return std::nullopt;
  ComputeBound b;
  b.gflop_per_epoch = *t.flops_per_sample * static_cast<double>(t.samples) / 1e9;
  b.gemm_tflops = *gemm_fp32_tflops;
  b.seconds = b.gflop_per_epoch / (b.gemm_tflops * 1e3);
  b.epoch_over_bound = t.epoch_seconds / b.seconds;
  return b;
}

}  // namespace dlready
