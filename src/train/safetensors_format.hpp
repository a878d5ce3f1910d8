// safetensors files as LibTorch tensors: the format itself is formats/safetensors.hpp (bytes,
// dtypes and shapes); this converts at the edge. The tests read our files with the Python package.
#pragma once
#include <torch/torch.h>

#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace dlready {

struct SafetensorsFile {
  std::map<std::string, std::string> metadata;  // "__metadata__": string values only, as the format says
  std::vector<std::pair<std::string, torch::Tensor>> tensors;  // read: by name; on the CPU
};

// The dtypes dlready writes: F32, F64, I8, I64. Anything else, a header that is not JSON, a shape
// or byte range that does not fit the file gives one line naming the tensor.
std::variant<SafetensorsFile, std::string> read_safetensors(const std::string& bytes);
std::string safetensors_bytes(const SafetensorsFile& file);

}  // namespace dlready
