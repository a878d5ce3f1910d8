#include "train/safetensors_format.hpp"

#include <cstring>

#include "formats/safetensors.hpp"

namespace dlready {
namespace {

struct Dtype {
  const char* name;
  torch::ScalarType type;
};
constexpr Dtype kDtypes[] = {{"F32", torch::kFloat}, {"F64", torch::kDouble}, {"I8", torch::kChar}, {"I64", torch::kLong}};

torch::ScalarType type_named(const std::string& name) {
  for (const auto& d : kDtypes)
    if (name == d.name) return d.type;
  return torch::kFloat;  // parse_safetensors let no other name through
}

const char* name_of(torch::ScalarType type) {
  for (const auto& d : kDtypes)
    if (type == d.type) return d.name;
  return nullptr;
}

}  // namespace

std::variant<SafetensorsFile, std::string> read_safetensors(const std::string& bytes) {
  auto parsed = parse_safetensors(bytes);
  if (auto* why = std::get_if<std::string>(&parsed)) return *why;
  auto& content = std::get<SafetensorsContent>(parsed);
  SafetensorsFile file;
  file.metadata = content.metadata;
  for (const auto& raw : content.tensors) {
    auto t = torch::empty(raw.shape, type_named(raw.dtype));
    if (!raw.bytes.empty()) std::memcpy(t.data_ptr(), raw.bytes.data(), raw.bytes.size());
    file.tensors.emplace_back(raw.name, t);
  }
  return file;
}

std::string safetensors_bytes(const SafetensorsFile& file) {
  SafetensorsContent content;
  content.metadata = file.metadata;
  for (const auto& [name, t] : file.tensors) {
    auto c = t.detach().cpu().contiguous();
    if (!name_of(c.scalar_type())) c = c.to(torch::kFloat);
    RawTensor raw{name, name_of(c.scalar_type()), c.sizes().vec(), {}};
    raw.bytes.assign(static_cast<const char*>(c.data_ptr()), static_cast<size_t>(c.numel()) * c.element_size());
    content.tensors.push_back(std::move(raw));
  }
  return serialize_safetensors(content);
}

}  // namespace dlready
