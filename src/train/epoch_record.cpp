#include "train/epoch_record.hpp"

#include <cstdio>

#include "torch_runtime/cuda_support.hpp"

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

Status write_run_files(const std::string& out, const std::vector<EpochMetrics>& history) {
  if (auto st = write_metrics_jsonl(out + "/metrics.jsonl", history); !st) return st;
  return write_curves_svg(out + "/curves.svg", history);
}

}  // namespace dlready
