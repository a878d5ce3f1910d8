#include "train/checkpoint.hpp"

#include <cstring>

#include "formats/checkpoint_format.hpp"
#include "secure/sealed_file.hpp"

namespace dlready {

Status save_checkpoint(const std::string& path, const Checkpoint& ck, SealingKey* key) {
  std::vector<RawTensor> tensors;
  for (const auto& [name, t] : ck.tensors) {
    auto c = t.detach().to(torch::kCPU, torch::kFloat).contiguous();
    tensors.push_back({name, "F32", c.sizes().vec(),
                       std::string(static_cast<const char*>(c.data_ptr()), static_cast<size_t>(c.numel()) * sizeof(float))});
  }
  return write_protected_file(path, serialize_checkpoint(ck.meta, tensors), key);
}

CheckpointLoad parse_checkpoint(const std::string& bytes, const std::string& name) {
  auto content = parse_checkpoint_bytes(bytes, name);
  if (!content.error.empty()) return {std::nullopt, content.error};
  Checkpoint ck;
  ck.meta = std::move(content.meta);
  for (const auto& raw : content.tensors) {
    auto t = torch::empty(raw.shape, torch::kFloat);
    std::memcpy(t.data_ptr(), raw.bytes.data(), raw.bytes.size());
    ck.tensors.emplace_back(raw.name, t);
  }
  return {std::move(ck), ""};
}

CheckpointLoad load_checkpoint(const std::string& path, SealingKey* key) {
  constexpr uint64_t kMaxCheckpointBytes = uint64_t{1} << 30;  // SimpleNet's is 2.4 MB, the CNN's 3 MB
  auto file = read_protected_file(path, key, kMaxCheckpointBytes, "a checkpoint");
  if (!file.bytes) return {std::nullopt, file.error};
  return parse_checkpoint(*file.bytes, path);
}

}  // namespace dlready
