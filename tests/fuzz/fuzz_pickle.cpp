// Fuzzes the reader of torch.save's state_dict files (formats/pickle_state_dict): any bytes give
// the tensors' records or one line saying why not — never an exception, a crash, deep recursion
// or quadratic time (the seeds hold a real file, 200,000 nested tuples and a flat MARK of 300,000).
#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>

#include "formats/pickle_state_dict.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  auto r = dlready::read_state_dict_records(bytes);
  if (auto* why = std::get_if<std::string>(&r); why && why->empty()) __builtin_trap();
  if (auto* ok = std::get_if<std::vector<dlready::StateDictTensor>>(&r))
    for (const auto& t : *ok)
      if (t.data_offset + t.data_bytes > size) __builtin_trap();  // every record inside the file
  return 0;
}
