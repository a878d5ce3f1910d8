// <out>/curves.svg: the run's loss (every few steps and per epoch) and accuracy (in percent, as the
// console prints it) on a white page with ticks, gridlines, a legend outside the curves and a line
// that says which run it is.
#pragma once
#include <string>
#include <vector>

#include "core/status.hpp"
#include "formats/metrics.hpp"

namespace dlready {

// `run_info`: "SimpleNet · SGD lr 0.01 momentum 0.9 · batch 64 · cpu" (escaped here).
std::string render_curves_svg(const std::vector<EpochMetrics>& history, const std::string& run_info);
Status write_curves_svg(const std::string& path, const std::vector<EpochMetrics>& history,
                        const std::string& run_info);

// Round tick positions (1, 2 or 5 times a power of ten) covering [lo, hi], about `target` of them.
std::vector<double> nice_ticks(double lo, double hi, int target);

}  // namespace dlready
