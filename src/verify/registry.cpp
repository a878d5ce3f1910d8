#include "verify/checks.hpp"

#include "core/text.hpp"

namespace dlready {

const char* to_string(CheckStatus s) {
  switch (s) {
    case CheckStatus::pass: return "PASS";
    case CheckStatus::warn: return "WARN";
    case CheckStatus::fail: return "FAIL";
    case CheckStatus::skipped: return "SKIPPED";
  }
  return "?";
}

std::vector<Check> check_registry() {
  std::vector<Check> all;
  add_compute_checks(all);
  add_memory_checks(all);
  add_collective_checks(all);
  return all;
}

CheckResult run_check(const Check& check, const CheckContext& ctx) {
  if (check.not_applicable) {
    if (auto why = check.not_applicable(ctx)) return {CheckStatus::skipped, *why, nlohmann::json::object()};
  }
  try {
    return check.run(ctx);
  } catch (const std::exception& e) {
    return {CheckStatus::fail, "raised: " + first_line(e.what()), nlohmann::json::object()};
  }
}

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
