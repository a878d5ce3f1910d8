#include "formats/metrics.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "os/atomic_file.hpp"
#include "core/json_text.hpp"

namespace dlready {

nlohmann::json to_json(const EpochMetrics& m) {
  nlohmann::json j = {{"epoch", m.epoch},           {"train_loss", m.train_loss}, {"train_acc", m.train_acc},
          {"test_loss", m.test_loss},   {"test_acc", m.test_acc},     {"seconds", m.seconds},
          {"samples_per_s", m.samples_per_s}, {"peak_rss_mib", m.rss_mib},
          {"device_allocated_mib", m.device_allocated_mib}, {"device_reserved_mib", m.device_reserved_mib},
          {"device_peak_mib", m.device_peak_mib}, {"loss_scale", m.loss_scale}, {"skipped_steps", m.skipped_steps}};
  j["steps"] = m.steps;
  j["loss_curve"] = nlohmann::json::array();
  for (const auto& p : m.loss_curve) j["loss_curve"].push_back({p.end_step, p.loss});
  return j;
}

std::vector<LossPoint> loss_curve_from_json(const nlohmann::json& a) {
  std::vector<LossPoint> out;
  if (!a.is_array()) return out;
  for (const auto& p : a)
    if (p.is_array() && p.size() == 2 && p[0].is_number_integer() && p[1].is_number())
      out.push_back({p[0].get<int64_t>(), p[1].get<double>()});
  return out;
}

EpochMetrics epoch_metrics_from_json(const nlohmann::json& j) {
  EpochMetrics m;
  m.epoch = j.value("epoch", 0);
  m.train_loss = j.value("train_loss", 0.0);
  m.train_acc = j.value("train_acc", 0.0);
  m.test_loss = j.value("test_loss", 0.0);
  m.test_acc = j.value("test_acc", 0.0);
  m.seconds = j.value("seconds", 0.0);
  m.samples_per_s = j.value("samples_per_s", 0.0);
  m.rss_mib = j.value("peak_rss_mib", 0.0);
  m.device_allocated_mib = j.value("device_allocated_mib", 0.0);
  m.device_reserved_mib = j.value("device_reserved_mib", 0.0);
  m.device_peak_mib = j.value("device_peak_mib", 0.0);
  m.loss_scale = j.value("loss_scale", 0.0);
  m.skipped_steps = j.value("skipped_steps", int64_t{0});
  m.steps = j.value("steps", int64_t{0});
  m.loss_curve = loss_curve_from_json(j.value("loss_curve", nlohmann::json::array()));
  return m;
}

Status write_metrics_jsonl(const std::string& path, const std::vector<EpochMetrics>& history) {
  std::string out;
  for (const auto& m : history) out += json_text(to_json(m)) + "\n";
  return write_file_atomically(path, out);
}

std::string progress_line(int epoch, int epochs, size_t done, size_t total, double sps, int columns) {
  char head[64], count[64], speed[96];
  std::snprintf(head, sizeof head, "epoch %d/%d", epoch, epochs);
  std::snprintf(count, sizeof count, " %zu/%zu", done, total);
  double eta = sps > 0 ? static_cast<double>(total - done) / sps : 0;
  std::snprintf(speed, sizeof speed, "  %.1fk samples/s  ETA %.0fs", sps / 1000, eta);
  // Fit the line in one row less a column (a full row wraps on some terminals): the bar shrinks
  // first, then the counts go, then the speed; what is left is cut.
  const size_t room = static_cast<size_t>(std::max(columns - 1, 8));
  const std::string parts[2] = {count, speed};
  for (int dropped = 0; dropped < 3; ++dropped) {
    std::string tail;
    for (int i = dropped; i < 2; ++i) tail += parts[i];
    size_t fixed = std::strlen(head) + 3 + tail.size();  // " [" and "]"
    if (fixed + 8 > room && dropped < 2) continue;
    int width = static_cast<int>(std::min<size_t>(24, room > fixed ? room - fixed : 0));
    if (width < 4) return std::string(head).substr(0, room);
    int filled = total ? static_cast<int>(width * static_cast<double>(done) / static_cast<double>(total)) : 0;
    std::string bar(static_cast<size_t>(filled), '#');
    bar.append(static_cast<size_t>(width - filled), '.');
    return std::string(head) + " [" + bar + "]" + tail;
  }
  return std::string(head).substr(0, room);
}

double peak_rss_mib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::atof(line.c_str() + 6) / 1024.0;
  return 0;
}

}  // namespace dlready
