#include "train/torch_save_format.hpp"

#include <vector>

#include "formats/pickle_state_dict.hpp"

namespace dlready {

std::string torch_save_state_dict(const NamedTensors& tensors) {
  std::vector<Float32Tensor> plain;
  for (const auto& [name, tensor] : tensors) {
    auto t = tensor.detach().to(torch::kCPU, torch::kFloat).contiguous();
    plain.push_back({name, t.sizes().vec(),
                     std::string(reinterpret_cast<const char*>(t.data_ptr<float>()), static_cast<size_t>(t.numel()) * 4)});
  }
  return write_state_dict(plain);
}

std::variant<NamedTensors, std::string> read_torch_save_state_dict(const std::string& bytes) {
  auto records = read_state_dict_records(bytes);
  if (auto* why = std::get_if<std::string>(&records)) return *why;
  NamedTensors out;
  for (const auto& r : std::get<std::vector<StateDictTensor>>(records)) {
    auto storage = torch::from_blob(const_cast<char*>(bytes.data() + r.data_offset),
                                    {static_cast<int64_t>(r.data_bytes / 4)}, torch::kFloat);
    out.emplace_back(r.name, storage.as_strided(r.size, r.stride, r.storage_offset).clone());
  }
  return out;
}

}  // namespace dlready
