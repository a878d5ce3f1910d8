// torch.save's state_dict files as LibTorch tensors: the format itself, read and written, is
// formats/pickle_state_dict.hpp (bytes and shapes); this converts at the edge.
#pragma once
#include <string>
#include <variant>

#include "train/model.hpp"

namespace dlready {

// float32 tensors (moved to the CPU and made contiguous here).
std::string torch_save_state_dict(const NamedTensors& tensors);

// The float32 tensors of a state_dict file torch.save wrote (or the line saying why not). Only the
// opcodes and globals weights_only allows in a state_dict are understood (collections.OrderedDict,
// torch._utils._rebuild_tensor_v2, torch.FloatStorage): nothing else is ever called.
std::variant<NamedTensors, std::string> read_torch_save_state_dict(const std::string& bytes);

}  // namespace dlready
