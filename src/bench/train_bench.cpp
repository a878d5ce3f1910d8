#include "bench/train_bench.hpp"

#include <stdlib.h>

#include <algorithm>

#include "torch_runtime/measure.hpp"
#include "os/posix_fs.hpp"
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
  auto data = to_tensors(*ds.dataset, limit, d);
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
  out.graph_kernels = r.graph_kernels;
  return out;
}

}  // namespace dlready
