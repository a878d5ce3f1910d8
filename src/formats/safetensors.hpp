// The safetensors format (an 8-byte little-endian header length, a JSON header naming each
// tensor's dtype, shape and byte range, then the data), read and written by our own code so the
// module needs no Rust library; bytes, dtypes and shapes only (train/safetensors_format converts
// to and from LibTorch tensors), so the fuzz build and the LibTorch-free tests reach it.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace dlready {

struct RawTensor {
  std::string name;
  std::string dtype;           // F32, F64, I8, I64
  std::vector<int64_t> shape;  // at most 4 dimensions
  std::string bytes;           // little-endian, row-major
};

struct SafetensorsContent {
  std::map<std::string, std::string> metadata;  // "__metadata__": string values only, as the format says
  std::vector<RawTensor> tensors;               // read: by name (the header is a JSON object)
};

// The bytes of one element of `dtype` (F32, F64, I8, I64); 0 for any other.
size_t safetensors_element_bytes(const std::string& dtype);

// Anything but those dtypes, a header that is not JSON, a shape or byte range that does not fit
// the file, two tensors sharing bytes: one line naming the tensor.
std::variant<SafetensorsContent, std::string> parse_safetensors(const std::string& bytes);
// The data 8-byte aligned after the header, as the library writes it.
std::string serialize_safetensors(const SafetensorsContent& content);

}  // namespace dlready
