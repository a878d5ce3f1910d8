#include "train/run_state.hpp"

namespace dlready {

bool RunState::params_finite() const {
  torch::NoGradGuard ng;
  for (const auto& [name, p] : params)
    if (!torch::isfinite(p).all().item<bool>()) return false;
  return true;
}

}  // namespace dlready
