// Little-endian integers and floats into a byte string, as the files dlready writes store them
// (torch.save's pickle, TensorBoard's TFRecord, safetensors); x86-64 and aarch64 are little-endian.
#pragma once
#include <cstring>
#include <string>
#include <type_traits>

namespace dlready {

template <class T>
void put_little_endian(std::string& out, T value) {
  static_assert(std::is_arithmetic_v<T>, "numbers only");
  char bytes[sizeof value];
  std::memcpy(bytes, &value, sizeof value);
  out.append(bytes, sizeof value);
}

}  // namespace dlready
