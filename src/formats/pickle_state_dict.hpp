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

}  // namespace dlready
