// torch.save's state_dict files, read without LibTorch: the zip archive's stored entries and a
// pickle machine for the opcodes and globals torch.load(weights_only=True) allows in a state_dict
// (collections.OrderedDict, torch._utils._rebuild_tensor_v2, torch.FloatStorage): nothing else is
// ever called. What it returns says where each float32 tensor's bytes are in the file; the LibTorch
// side (train/torch_save_format) makes tensors of them. Hostile files are refused with one line:
// nesting is bounded, a MARK's items are taken in linear time, zip names are unique.
#pragma once
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace dlready {

struct StateDictTensor {
  std::string name;
  size_t data_offset = 0, data_bytes = 0;  // its storage record in the file
  int64_t storage_offset = 0;              // in elements
  std::vector<int64_t> size, stride;
};

// Every entry checked: in bounds of its storage, no more elements than it holds, at most 8 dims.
std::variant<std::vector<StateDictTensor>, std::string> read_state_dict_records(const std::string& bytes);

// Writing the file `torch.save(model.state_dict(), FILE)` writes, so that
// `torch.load(FILE, weights_only=True)` reads it: a zip archive (entries stored, not compressed)
// holding `archive/data.pkl` — a protocol-2 pickle of an OrderedDict of tensors rebuilt by
// torch._utils._rebuild_tensor_v2 from torch.FloatStorage records — `archive/data/<key>` (each
// tensor's bytes), `archive/byteorder` and `archive/version`. Written by our own code because
// LibTorch's pickler tags dicts with torch.jit._pickle.restore_type_tag, which weights_only
// refuses; only the opcodes and globals weights_only allows are used (state_dict_writer.cpp).
struct Float32Tensor {
  std::string name;
  std::vector<int64_t> shape;
  std::string bytes;  // contiguous, row-major, little-endian float32
};
std::string write_state_dict(const std::vector<Float32Tensor>& tensors);

}  // namespace dlready
