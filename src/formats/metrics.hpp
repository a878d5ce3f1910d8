// Training metrics: per-epoch records, the JSONL log, a progress line (curves_svg.hpp draws them).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.hpp"

namespace dlready {

// One point of the loss curve: the mean training loss of an epoch's steps up to `end_step`
// (1-based, in the epoch) since the point before.
struct LossPoint {
  int64_t end_step = 0;
  double loss = 0;
};

struct EpochMetrics {
  int epoch = 0;
  double train_loss = 0, train_acc = 0, test_loss = 0, test_acc = 0;
  double seconds = 0, samples_per_s = 0;
  double rss_mib = 0;  // host peak RSS so far
  // CUDA caching allocator at the end of the epoch, and its peak during it (0 on the CPU).
  double device_allocated_mib = 0, device_reserved_mib = 0, device_peak_mib = 0;
  double loss_scale = 0;      // fp16 AMP only
  int64_t skipped_steps = 0;  // fp16 AMP only: cumulative
  int64_t steps = 0;          // steps in the epoch (of one rank)
  std::vector<LossPoint> loss_curve;  // rank 0's loss every few steps
};

nlohmann::json to_json(const EpochMetrics& m);
EpochMetrics epoch_metrics_from_json(const nlohmann::json& j);
// [[end_step, loss], ...]; malformed points are dropped.
std::vector<LossPoint> loss_curve_from_json(const nlohmann::json& a);

// Rewrites the whole file atomically from the history (so a resumed run's files are whole).
Status write_metrics_jsonl(const std::string& path, const std::vector<EpochMetrics>& history);

// "epoch 2/5 [#######.....] 31000/60000  31.2k samples/s  ETA 3s", fitted to `columns` (one column
// is left free so the line never wraps).
std::string progress_line(int epoch, int epochs, size_t done, size_t total, double samples_per_s, int columns = 80);

double peak_rss_mib();  // from /proc/self/status VmHWM

}  // namespace dlready
