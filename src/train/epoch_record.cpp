#include "train/epoch_record.hpp"

#include <cstdio>

#include "torch_runtime/cuda_support.hpp"
#include "formats/curves_svg.hpp"

namespace dlready {

void record_device_memory(const torch::Device& device, EpochMetrics& m) {
  if (!device.is_cuda()) return;
  if (auto st = cuda_allocator_stats(device.index())) {
    m.device_allocated_mib = static_cast<double>(st->allocated) / (1 << 20);
    m.device_reserved_mib = static_cast<double>(st->reserved) / (1 << 20);
    m.device_peak_mib = static_cast<double>(st->peak_allocated) / (1 << 20);
  }
}

std::string epoch_line(const EpochMetrics& m, int epochs, const torch::Device& device, bool loss_scaled) {
  char line[400];
  int len = std::snprintf(line, sizeof line,
                          "epoch %d/%d  train loss %.4f acc %.2f%%  test loss %.4f acc %.2f%%  "
                          "%.2fs  %.0f samples/s  RSS %.0f MiB",
                          m.epoch, epochs, m.train_loss, 100 * m.train_acc, m.test_loss, 100 * m.test_acc, m.seconds,
                          m.samples_per_s, m.rss_mib);
  auto room = [&] { return len > 0 && len < static_cast<int>(sizeof line); };
  if (device.is_cuda() && room())
    len += std::snprintf(line + len, sizeof line - static_cast<size_t>(len),
                         "  %s alloc %.0f / reserved %.0f / peak %.0f MiB", device.str().c_str(),
                         m.device_allocated_mib, m.device_reserved_mib, m.device_peak_mib);
  if (loss_scaled && room())
    std::snprintf(line + len, sizeof line - static_cast<size_t>(len), "  loss scale %g, %lld step(s) skipped",
                  m.loss_scale, static_cast<long long>(m.skipped_steps));
  return line;
}

std::string run_info(const TrainOptions& o, const torch::Device& device, int world) {
  char lr[64];
  std::snprintf(lr, sizeof lr, "lr %g", o.lr);
  std::string s = std::string("model ") + to_string(o.model) + " \u00b7 " + to_string(o.optimizer) + " " + lr;
  if (o.optimizer == OptimizerKind::sgd && o.momentum != 0) {
    std::snprintf(lr, sizeof lr, " momentum %g", o.momentum);
    s += lr;
  }
  s += " \u00b7 batch " + std::to_string(o.batch_size) + " \u00b7 " + device.str();
  if (o.amp != AmpMode::off) s += std::string(" ") + to_string(o.amp);
  if (world > 1) s += " \u00b7 " + std::to_string(world) + " ranks";
  return s + " \u00b7 seed " + std::to_string(o.seed);
}

Status write_run_files(const std::string& out, const std::vector<EpochMetrics>& history, const std::string& info) {
  if (auto st = write_metrics_jsonl(out + "/metrics.jsonl", history); !st) return st;
  return write_curves_svg(out + "/curves.svg", history, info);
}

}  // namespace dlready
