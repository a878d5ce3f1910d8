#include "formats/curves_svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "os/atomic_file.hpp"
#include "core/text.hpp"

namespace dlready {
namespace {

constexpr int kPanelWidth = 460, kHeight = 380;
constexpr double kPlotTop = 104, kPlotBottom = kHeight - 46, kLeftMargin = 62, kRightMargin = 22;
const char* const kTrainColour = "#1f77b4";
const char* const kTestColour = "#d62728";

struct Series {
  std::string label;
  const char* colour;
  std::vector<std::pair<double, double>> points;  // (epochs, value)
  double width = 2;
  bool markers = true;
  const char* value_suffix = nullptr;  // when set, the last value is written beside its point
  bool value_below = false;            // ... under it (the lower of two close end values)
};

int decimals_for(double step) { return std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9))); }

std::string number(double v, int decimals, const char* suffix = "") {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f%s", decimals, v, suffix);
  return buf;
}

// The panel's plot area in pixels and its data range, ticks included.
struct Frame {
  double left, right;
  std::vector<double> x_ticks, y_ticks;
  double px(double x) const { return left + (right - left) * (x - x_ticks.front()) / (x_ticks.back() - x_ticks.front()); }
  double py(double y) const {
    return kPlotBottom - (kPlotBottom - kPlotTop) * (y - y_ticks.front()) / (y_ticks.back() - y_ticks.front());
  }
};

void draw_grid(std::ostringstream& s, const Frame& f, const char* y_suffix) {
  int xd = decimals_for(f.x_ticks.size() > 1 ? f.x_ticks[1] - f.x_ticks[0] : 1);
  int yd = decimals_for(f.y_ticks.size() > 1 ? f.y_ticks[1] - f.y_ticks[0] : 1);
  for (double t : f.y_ticks) {
    s << "<line x1=\"" << f.left << "\" y1=\"" << f.py(t) << "\" x2=\"" << f.right << "\" y2=\"" << f.py(t)
      << "\" stroke=\"#e0e0e0\"/>\n<text x=\"" << f.left - 6 << "\" y=\"" << f.py(t) + 4
      << "\" text-anchor=\"end\">" << number(t, yd, y_suffix) << "</text>\n";
  }
  for (double t : f.x_ticks) {
    s << "<line x1=\"" << f.px(t) << "\" y1=\"" << kPlotTop << "\" x2=\"" << f.px(t) << "\" y2=\"" << kPlotBottom
      << "\" stroke=\"#e0e0e0\"/>\n<text x=\"" << f.px(t) << "\" y=\"" << kPlotBottom + 16
      << "\" text-anchor=\"middle\">" << number(t, xd) << "</text>\n";
  }
  s << "<rect x=\"" << f.left << "\" y=\"" << kPlotTop << "\" width=\"" << f.right - f.left << "\" height=\""
    << kPlotBottom - kPlotTop << "\" fill=\"none\" stroke=\"black\"/>\n";
  s << "<text x=\"" << (f.left + f.right) / 2 << "\" y=\"" << kHeight - 12 << "\" text-anchor=\"middle\">epoch</text>\n";
}

void draw_series(std::ostringstream& s, const Frame& f, const Series& series) {
  std::vector<std::pair<double, double>> pts;
  for (const auto& [x, y] : series.points)
    if (std::isfinite(y)) pts.emplace_back(f.px(x), f.py(y));
  if (pts.size() > 1 && series.width > 0) {
    s << "<polyline fill=\"none\" stroke=\"" << series.colour << "\" stroke-width=\"" << series.width << "\" points=\"";
    for (const auto& [x, y] : pts) s << x << "," << y << " ";
    s << "\"/>\n";
  }
  if (series.markers)
    for (const auto& [x, y] : pts)
      s << "<circle cx=\"" << x << "\" cy=\"" << y << "\" r=\"3.5\" fill=\"" << series.colour << "\"/>\n";
  if (series.value_suffix && !pts.empty() && std::isfinite(series.points.back().second))
    s << "<text x=\"" << pts.back().first - 6 << "\" y=\"" << pts.back().second + (series.value_below ? 16 : -7)
      << "\" text-anchor=\"end\" fill=\""
      << series.colour << "\">" << number(series.points.back().second, 2, series.value_suffix) << "</text>\n";
}

// Legend items in one row between the panel's title and its plot, so no curve is covered.
void draw_legend(std::ostringstream& s, double x, const std::vector<Series>& series) {
  for (const auto& item : series) {
    if (item.points.empty()) continue;
    s << "<line x1=\"" << x << "\" y1=\"88\" x2=\"" << x + 18 << "\" y2=\"88\" stroke=\"" << item.colour
      << "\" stroke-width=\"" << item.width << "\"/>\n";
    if (item.markers) s << "<circle cx=\"" << x + 9 << "\" cy=\"88\" r=\"3.5\" fill=\"" << item.colour << "\"/>\n";
    s << "<text x=\"" << x + 22 << "\" y=\"92\">" << escape_xml(item.label) << "</text>\n";
    x += 32 + 6.2 * static_cast<double>(item.label.size());
  }
}

// Epochs 1..N as ticks (a single epoch centred); nice ticks from 1 for long runs.
std::vector<double> whole_epoch_ticks(double epochs) {
  if (epochs <= 1) return {0.5, 1.0, 1.5};
  if (epochs > 10) return nice_ticks(1, epochs, 5);
  std::vector<double> t;
  for (int e = 1; e <= static_cast<int>(epochs); ++e) t.push_back(e);
  return t;
}

// `first_epoch`: where the x axis starts (loss: 0, as steps run within the first epoch; accuracy:
// 1, the first epoch's end, where it is first measured).
void draw_panel(std::ostringstream& s, int x0, const std::string& title, std::vector<Series> series,
                double epochs, const char* y_suffix, double first_epoch) {
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& item : series)
    for (const auto& p : item.points)
      if (std::isfinite(p.second)) lo = std::min(lo, p.second), hi = std::max(hi, p.second);
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  Frame f{x0 + kLeftMargin, x0 + kPanelWidth - kRightMargin,
          first_epoch >= 1 ? whole_epoch_ticks(epochs) : nice_ticks(0, std::max(epochs, 1.0), 5),
          nice_ticks(lo, hi, 5)};
  // Two end values written beside their points: the lower one goes under its point, so they never
  // cover each other however close they are.
  const Series* top = nullptr;
  for (const auto& item : series)
    if (item.value_suffix && !item.points.empty() && (!top || item.points.back().second > top->points.back().second))
      top = &item;
  for (auto& item : series) item.value_below = item.value_suffix && top && &item != top;
  s << "<text x=\"" << x0 + kPanelWidth / 2 << "\" y=\"72\" text-anchor=\"middle\" font-weight=\"bold\">"
    << escape_xml(title) << "</text>\n";
  draw_grid(s, f, y_suffix);
  for (const auto& item : series) draw_series(s, f, item);
  draw_legend(s, f.left, series);
}

std::vector<Series> loss_series(const std::vector<EpochMetrics>& h) {
  Series steps{"train", kTrainColour, {}, 1.2, false}, train{"train, epoch mean", kTrainColour, {}, 0, true},
      test{"test", kTestColour, {}, 2, true};
  int64_t every = 0;
  for (const auto& m : h) {
    for (const auto& p : m.loss_curve)
      if (m.steps > 0) steps.points.emplace_back(m.epoch - 1 + static_cast<double>(p.end_step) / static_cast<double>(m.steps), p.loss);
    if (every == 0 && !m.loss_curve.empty()) every = m.loss_curve.front().end_step;
    train.points.emplace_back(m.epoch, m.train_loss);
    test.points.emplace_back(m.epoch, m.test_loss);
  }
  if (every > 0) steps.label = "train, every " + std::to_string(every) + " step" + (every == 1 ? "" : "s");
  return {steps, train, test};
}

std::vector<Series> accuracy_series(const std::vector<EpochMetrics>& h) {
  Series train{"train", kTrainColour, {}, 2, true, "%"}, test{"test", kTestColour, {}, 2, true, "%"};
  for (const auto& m : h) {
    train.points.emplace_back(m.epoch, 100 * m.train_acc);
    test.points.emplace_back(m.epoch, 100 * m.test_acc);
  }
  return {train, test};
}

std::string summary_line(const std::vector<EpochMetrics>& h) {
  if (h.empty()) return "no epoch finished yet";
  const auto& m = h.back();
  auto value = [](double v, int decimals, const char* suffix = "") {
    return std::isfinite(v) ? number(v, decimals, suffix) : std::string("not finite");
  };
  return "after epoch " + std::to_string(m.epoch) + ": test accuracy " + value(100 * m.test_acc, 2, "%") +
         ", test loss " + value(m.test_loss, 4) + ", train loss " + value(m.train_loss, 4);
}

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int target) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  if (hi - lo < 1e-12 * std::max(1.0, std::fabs(hi))) {
    double half = std::max(std::fabs(lo) * 0.05, 1e-6);
    lo -= half, hi += half;
  }
  double raw = (hi - lo) / std::max(1, target);
  int exponent = static_cast<int>(std::floor(std::log10(raw)));
  double norm = raw / std::pow(10.0, exponent);
  double multiple = norm < 1.5 ? 1 : norm < 3.5 ? 2 : norm < 7.5 ? 5 : 10;
  // k * multiple * 10^exponent, divided by an exact power of ten when the exponent is negative, so
  // that 3 * 0.2 is 0.6 and not 0.6000000000000001.
  auto tick = [&](double k) {
    return exponent < 0 ? k * multiple / std::pow(10.0, -exponent) : k * multiple * std::pow(10.0, exponent);
  };
  double step = tick(1);
  std::vector<double> ticks;
  for (double k = std::floor(lo / step + 1e-9); tick(k) < hi + step * 0.999 && ticks.size() < 100; ++k)
    ticks.push_back(tick(k) == 0 ? 0.0 : tick(k));
  if (ticks.size() < 2) ticks.push_back(ticks.empty() ? hi : ticks.back() + step);
  return ticks;
}

std::string render_curves_svg(const std::vector<EpochMetrics>& h, const std::string& run_info) {
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << 2 * kPanelWidth << "\" height=\"" << kHeight
    << "\" font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s << "<text x=\"16\" y=\"20\" font-size=\"14\" font-weight=\"bold\">dlready train</text>\n"
    << "<text x=\"16\" y=\"38\">" << escape_xml(run_info) << "</text>\n"
    << "<text x=\"16\" y=\"54\">" << escape_xml(summary_line(h)) << "</text>\n";
  double epochs = h.empty() ? 1.0 : h.back().epoch;
  draw_panel(s, 0, "loss", loss_series(h), epochs, "", 0);
  draw_panel(s, kPanelWidth, "accuracy", accuracy_series(h), epochs, "%", 1);
  s << "</svg>\n";
  return s.str();
}

Status write_curves_svg(const std::string& path, const std::vector<EpochMetrics>& history, const std::string& run_info) {
  return write_file_atomically(path, render_curves_svg(history, run_info));
}

}  // namespace dlready
