// Little-endian integers and floats into a byte string and back, as the files dlready writes store them
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

// The number stored at `bytes` (which need not be aligned).
template <class T>
T read_little_endian(const char* bytes) {
  static_assert(std::is_arithmetic_v<T>, "numbers only");
  T value;
  std::memcpy(&value, bytes, sizeof value);
  return value;
}

}  // namespace dlready
