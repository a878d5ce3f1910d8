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

}  // namespace dlready
