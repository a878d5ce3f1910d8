// Writing the file `torch.save(model.state_dict(), FILE)` writes, so that
// `torch.load(FILE, weights_only=True)` reads it: a zip archive (entries stored, not compressed)
// holding `archive/data.pkl` — a protocol-2 pickle of an OrderedDict of tensors rebuilt by
// torch._utils._rebuild_tensor_v2 from torch.FloatStorage records — `archive/data/<key>` (each
// tensor's bytes), `archive/byteorder` and `archive/version`. Written here because LibTorch's own
// pickler tags dicts with torch.jit._pickle.restore_type_tag, which weights_only refuses; only the
// opcodes and globals weights_only allows are used.
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
