#include "torch_runtime/numeric.hpp"

#include <cmath>
#include <limits>

namespace dlready {

double max_relative_error(const torch::Tensor& got, const torch::Tensor& ref) {
  auto g = got.detach().to(torch::kCPU, torch::kDouble);
  auto r = ref.detach().to(torch::kCPU, torch::kDouble);
  if (g.sizes() != r.sizes()) return std::numeric_limits<double>::infinity();
  double scale = r.abs().max().item<double>();
  double err = (g - r).abs().max().item<double>();
  if (std::isnan(err)) return std::numeric_limits<double>::infinity();
  return err / std::max(scale, 1e-30);
}

}  // namespace dlready
