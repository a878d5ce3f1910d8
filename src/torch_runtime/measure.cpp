#include "torch_runtime/measure.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace dlready {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

double spread_percent(const Timing& t) {
  return t.median_s > 0 ? 100.0 * (t.max_s - t.min_s) / t.median_s : 0;
}

Timing measure(const std::function<void()>& op, const std::function<void()>& sync, const Recipe& recipe,
               const std::function<double()>& now_fn) {
  auto now = now_fn ? now_fn : [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  };
  auto run = [&](int n) {
    double t0 = now();
    for (int i = 0; i < n; ++i) op();
    if (sync) sync();
    return now() - t0;
  };
  // Warm-up; the last one calibrates how many operations fill a sample.
  double one = 0;
  for (int i = 0; i < std::max(1, recipe.warmup); ++i) one = run(1);
  int inner = 1;
  if (one > 0 && one < recipe.min_sample_seconds)
    inner = static_cast<int>(std::min<double>(recipe.max_inner, std::ceil(recipe.min_sample_seconds / one)));
  Timing t;
  t.inner = inner;
  std::vector<double> per_op;
  for (int s = 0; s < std::max(1, recipe.samples); ++s) per_op.push_back(run(inner) / inner);
  t.samples = static_cast<int>(per_op.size());
  t.median_s = median(per_op);
  t.min_s = *std::min_element(per_op.begin(), per_op.end());
  t.max_s = *std::max_element(per_op.begin(), per_op.end());
  return t;
}

}  // namespace dlready
