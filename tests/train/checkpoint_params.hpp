// The model parameters (fc*, conv*) of the checkpoint a training run left in `out`.
#pragma once
#include <stdexcept>
#include <string>

#include "train/checkpoint.hpp"

namespace dlready::test {

inline NamedTensors model_params(const std::string& out) {
  auto ld = load_checkpoint(out + "/checkpoint.dlr");
  if (!ld.checkpoint) throw std::runtime_error(ld.error);
  NamedTensors p;
  for (auto& [name, t] : ld.checkpoint->tensors)
    if (name.rfind("fc", 0) == 0 || name.rfind("conv", 0) == 0) p.emplace_back(name, t);
  return p;
}

}  // namespace dlready::test
