// Copy bandwidth: host<->device with pageable and pinned host memory, device<->device; on the CPU
// the host memory copy that bounds everything else there.
#pragma once
#include <torch/torch.h>

#include <string>
#include <vector>

#include "torch_runtime/measure.hpp"

namespace dlready {

struct CopyRow {
  std::string kind;  // h2d-pageable | h2d-pinned | d2h-pageable | d2h-pinned | d2d | host
  int64_t bytes = 0;
  double gb_per_s = 0;  // 1e9 bytes/s from the median time (d2d counts read + write once: bytes)
  Timing timing;
  bool verified = false;  // the destination equals the source after the timed copies
};

std::vector<CopyRow> bench_copy(const torch::Device& d, int64_t bytes, const Recipe& recipe);

}  // namespace dlready
