// The one measuring recipe every benchmark uses: warm up, calibrate how many operations make a
// sample long enough to time, synchronise, take N samples, report the median per operation.
#pragma once
#include <functional>
#include <vector>

namespace dlready {

struct Recipe {
  int warmup = 3;                    // untimed runs (caches, kernels, allocator, clocks settle)
  int samples = 10;                  // timed samples; the median is the figure quoted
  double min_sample_seconds = 0.02;  // each sample repeats the operation until at least this long
  int max_inner = 1 << 16;
};

struct Timing {
  double median_s = 0, min_s = 0, max_s = 0;  // seconds per operation
  int samples = 0, inner = 0;                 // samples taken, operations per sample
};

double median(std::vector<double> v);  // 0 for an empty vector

// (slowest - fastest) / median, in percent: how far a median can be trusted (0 without a median).
double spread_percent(const Timing& t);

// op may run asynchronously (CUDA); sync waits until all of it is done. now returns seconds on a
// monotonic clock (a parameter so the recipe itself is testable).
Timing measure(const std::function<void()>& op, const std::function<void()>& sync, const Recipe& recipe,
               const std::function<double()>& now = {});

}  // namespace dlready
