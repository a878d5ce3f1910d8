#include "train/safetensors_format.hpp"

#include <algorithm>
#include <cstring>
#include <tuple>
#include <vector>

#include "core/json_text.hpp"
#include "core/little_endian.hpp"

namespace dlready {
namespace {

constexpr uint64_t kMaxHeader = 100u << 20;  // the safetensors library's own limit

struct Dtype {
  const char* name;
  torch::ScalarType type;
  size_t bytes;
};
constexpr Dtype kDtypes[] = {{"F32", torch::kFloat, 4}, {"F64", torch::kDouble, 8}, {"I8", torch::kChar, 1},
                             {"I64", torch::kLong, 8}};

const Dtype* dtype_named(const std::string& name) {
  for (const auto& d : kDtypes)
    if (name == d.name) return &d;
  return nullptr;
}

const Dtype* dtype_of(torch::ScalarType type) {
  for (const auto& d : kDtypes)
    if (type == d.type) return &d;
  return nullptr;
}

std::variant<torch::Tensor, std::string> read_tensor(const nlohmann::json& info, const char* data, uint64_t data_size) {
  if (!info.is_object()) return std::string("malformed entry");
  // value() would throw on a field of another type: each is read only as what it should be.
  if (!info.contains("dtype") || !info["dtype"].is_string()) return std::string("no dtype string");
  const Dtype* dtype = dtype_named(info["dtype"].get<std::string>());
  if (!dtype) return "dtype " + info["dtype"].get<std::string>() + " is not one of F32, F64, I8, I64";
  auto shape = info.value("shape", nlohmann::json());
  auto offsets = info.value("data_offsets", nlohmann::json());
  if (!shape.is_array() || shape.size() > 4 || !offsets.is_array() || offsets.size() != 2)
    return std::string("malformed entry");
  std::vector<int64_t> dims;
  uint64_t numel = 1;
  for (const auto& d : shape) {
    if (!d.is_number_unsigned() || d.get<uint64_t>() > (1u << 24)) return std::string("malformed shape");
    dims.push_back(d.get<int64_t>());
    numel *= d.get<uint64_t>();
    if (numel > (uint64_t{1} << 32)) return std::string("more elements than any model of the reference job holds");
  }
  if (!offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned()) return std::string("malformed data_offsets");
  auto begin = offsets[0].get<uint64_t>(), end = offsets[1].get<uint64_t>();
  if (begin > end || end > data_size || end - begin != numel * dtype->bytes)
    return std::string("data_offsets do not fit the shape or the file");
  auto t = torch::empty(dims, dtype->type);
  if (numel) std::memcpy(t.data_ptr(), data + begin, end - begin);
  return t;
}

}  // namespace

std::variant<SafetensorsFile, std::string> read_safetensors(const std::string& bytes) {
  if (bytes.size() < 8) return std::string("shorter than a safetensors header");
  uint64_t header_len = 0;
  std::memcpy(&header_len, bytes.data(), sizeof header_len);
  if (header_len > kMaxHeader || header_len > bytes.size() - 8)
    return "safetensors header length " + std::to_string(header_len) + " is past the file's end";
  std::string why;
  auto header = parse_json_bounded(std::string_view(bytes).substr(8, header_len), &why);
  if (header.is_discarded()) return "the safetensors header is not a JSON object (" + why + ")";
  if (!header.is_object()) return std::string("the safetensors header is not a JSON object");
  const size_t data_start = 8 + header_len;
  SafetensorsFile file;
  std::vector<std::tuple<uint64_t, uint64_t, std::string>> ranges;  // [begin, end) of each tensor's bytes
  for (const auto& [key, info] : header.items()) {
    if (key == "__metadata__") {
      if (!info.is_object()) return std::string("__metadata__ is not an object");
      for (const auto& [k, v] : info.items())
        if (v.is_string()) file.metadata[k] = v.get<std::string>();
      continue;
    }
    auto t = read_tensor(info, bytes.data() + data_start, bytes.size() - data_start);
    if (auto* why = std::get_if<std::string>(&t)) return "tensor '" + key + "': " + *why;
    file.tensors.emplace_back(key, std::get<torch::Tensor>(t));
    ranges.push_back({info["data_offsets"][0].get<uint64_t>(), info["data_offsets"][1].get<uint64_t>(), key});
  }
  // The safetensors library refuses tensors whose bytes overlap (one byte, two meanings): so does dlready.
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i)
    if (std::get<0>(ranges[i]) < std::get<1>(ranges[i - 1]))
      return "tensors '" + std::get<2>(ranges[i - 1]) + "' and '" + std::get<2>(ranges[i]) + "' overlap in the file";
  return file;
}

std::string safetensors_bytes(const SafetensorsFile& file) {
  nlohmann::json header = nlohmann::json::object();
  if (!file.metadata.empty()) header["__metadata__"] = file.metadata;
  std::string data;
  for (const auto& [name, t] : file.tensors) {
    auto c = t.detach().cpu().contiguous();
    const Dtype* dtype = dtype_of(c.scalar_type());
    if (!dtype) c = c.to(torch::kFloat), dtype = dtype_of(torch::kFloat);
    size_t begin = data.size(), n = static_cast<size_t>(c.numel()) * dtype->bytes;
    data.append(static_cast<const char*>(c.data_ptr()), n);
    header[name] = {{"dtype", dtype->name}, {"shape", c.sizes().vec()}, {"data_offsets", {begin, begin + n}}};
  }
  std::string h = json_text(header);
  h.append((8 - h.size() % 8) % 8, ' ');  // the data starts 8-byte aligned, as the library writes it
  std::string out;
  put_little_endian(out, static_cast<uint64_t>(h.size()));
  return out + h + data;
}

}  // namespace dlready
