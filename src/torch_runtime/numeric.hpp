// How results computed on a device are judged: against a float64 reference on the CPU.
#pragma once
#include <torch/torch.h>

namespace dlready {

// max |got - ref| / max |ref| (ref in float64 on the CPU).
double max_relative_error(const torch::Tensor& got, const torch::Tensor& ref);

}  // namespace dlready
