#include "train/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/atomic_file.hpp"
#include "core/json_text.hpp"

namespace dlready {

nlohmann::json to_json(const EpochMetrics& m) {
  return {{"epoch", m.epoch},           {"train_loss", m.train_loss}, {"train_acc", m.train_acc},
          {"test_loss", m.test_loss},   {"test_acc", m.test_acc},     {"seconds", m.seconds},
          {"samples_per_s", m.samples_per_s}, {"peak_rss_mib", m.rss_mib},
          {"device_allocated_mib", m.device_allocated_mib}, {"device_reserved_mib", m.device_reserved_mib},
          {"device_peak_mib", m.device_peak_mib}, {"loss_scale", m.loss_scale}, {"skipped_steps", m.skipped_steps}};
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
  return m;
}

Status write_metrics_jsonl(const std::string& path, const std::vector<EpochMetrics>& history) {
  std::string out;
  for (const auto& m : history) out += json_text(to_json(m)) + "\n";
  return write_file_atomically(path, out);
}

std::string render_curves_svg(const std::vector<EpochMetrics>& h) {
  // Two panels side by side: loss (train, test) and accuracy (train, test) per epoch.
  const int W = 360, H = 240, pad = 40;
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << 2 * W << "\" height=\"" << H
    << "\" font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  auto panel = [&](int x0, const char* title, auto get_train, auto get_test) {
    double lo = 1e300, hi = -1e300;
    for (const auto& m : h) {
      lo = std::min({lo, get_train(m), get_test(m)});
      hi = std::max({hi, get_train(m), get_test(m)});
    }
    if (h.empty()) lo = 0, hi = 1;
    if (hi - lo < 1e-9) hi = lo + 1e-9;
    int n = static_cast<int>(h.size());
    auto px = [&](int i) { return x0 + pad + (n <= 1 ? 0.0 : (W - 2.0 * pad) * i / (n - 1)); };
    auto py = [&](double v) { return H - pad - (H - 2.0 * pad) * (v - lo) / (hi - lo); };
    s << "<text x=\"" << x0 + W / 2 << "\" y=\"16\" text-anchor=\"middle\">" << title << "</text>\n";
    s << "<line x1=\"" << x0 + pad << "\" y1=\"" << H - pad << "\" x2=\"" << x0 + W - pad << "\" y2=\"" << H - pad
      << "\" stroke=\"black\"/>\n<line x1=\"" << x0 + pad << "\" y1=\"" << pad << "\" x2=\"" << x0 + pad << "\" y2=\""
      << H - pad << "\" stroke=\"black\"/>\n";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4g", hi);
    s << "<text x=\"" << x0 + 2 << "\" y=\"" << pad + 4 << "\">" << buf << "</text>\n";
    std::snprintf(buf, sizeof buf, "%.4g", lo);
    s << "<text x=\"" << x0 + 2 << "\" y=\"" << H - pad << "\">" << buf << "</text>\n";
    s << "<text x=\"" << x0 + W / 2 << "\" y=\"" << H - 8 << "\" text-anchor=\"middle\">epoch (1-" << n << ")</text>\n";
    const char* colours[2] = {"#1f77b4", "#d62728"};
    for (int series = 0; series < 2; ++series) {
      s << "<polyline fill=\"none\" stroke=\"" << colours[series] << "\" stroke-width=\"2\" points=\"";
      for (int i = 0; i < n; ++i) s << px(i) << "," << py(series == 0 ? get_train(h[i]) : get_test(h[i])) << " ";
      s << "\"/>\n";
      s << "<text x=\"" << x0 + W - pad - 60 << "\" y=\"" << pad + 14 * series << "\" fill=\"" << colours[series]
        << "\">" << (series == 0 ? "train" : "test") << "</text>\n";
    }
  };
  panel(0, "loss", [](const EpochMetrics& m) { return m.train_loss; }, [](const EpochMetrics& m) { return m.test_loss; });
  panel(W, "accuracy", [](const EpochMetrics& m) { return m.train_acc; }, [](const EpochMetrics& m) { return m.test_acc; });
  s << "</svg>\n";
  return s.str();
}

Status write_curves_svg(const std::string& path, const std::vector<EpochMetrics>& history) {
  return write_file_atomically(path, render_curves_svg(history));
}

std::string progress_line(int epoch, int epochs, size_t done, size_t total, double sps) {
  const int width = 24;
  int filled = total ? static_cast<int>(width * static_cast<double>(done) / static_cast<double>(total)) : 0;
  std::string bar(static_cast<size_t>(filled), '#');
  bar.append(static_cast<size_t>(width - filled), '.');
  double eta = sps > 0 ? static_cast<double>(total - done) / sps : 0;
  char buf[160];
  std::snprintf(buf, sizeof buf, "epoch %d/%d [%s] %zu/%zu  %.1fk samples/s  ETA %.0fs", epoch, epochs, bar.c_str(),
                done, total, sps / 1000, eta);
  return buf;
}

double peak_rss_mib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::atof(line.c_str() + 6) / 1024.0;
  return 0;
}

}  // namespace dlready
