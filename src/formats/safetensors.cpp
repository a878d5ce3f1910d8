#include "formats/safetensors.hpp"

#include <algorithm>
#include <cstring>
#include <tuple>

#include "core/json_text.hpp"
#include "core/little_endian.hpp"

namespace dlready {
namespace {

constexpr uint64_t kMaxHeader = 100u << 20;  // the safetensors library's own limit

std::variant<RawTensor, std::string> read_tensor(const std::string& name, const nlohmann::json& info, const char* data,
                                                 uint64_t data_size) {
  if (!info.is_object()) return std::string("malformed entry");
  // value() would throw on a field of another type: each is read only as what it should be.
  if (!info.contains("dtype") || !info["dtype"].is_string()) return std::string("no dtype string");
  RawTensor t{name, info["dtype"].get<std::string>(), {}, {}};
  size_t element = safetensors_element_bytes(t.dtype);
  if (!element) return "dtype " + t.dtype + " is not one of F32, F64, I8, I64";
  auto shape = info.value("shape", nlohmann::json());
  auto offsets = info.value("data_offsets", nlohmann::json());
  if (!shape.is_array() || shape.size() > 4 || !offsets.is_array() || offsets.size() != 2)
    return std::string("malformed entry");
  uint64_t numel = 1;
  for (const auto& d : shape) {
    if (!d.is_number_unsigned() || d.get<uint64_t>() > (1u << 24)) return std::string("malformed shape");
    t.shape.push_back(d.get<int64_t>());
    numel *= d.get<uint64_t>();
    if (numel > (uint64_t{1} << 32)) return std::string("more elements than any model of the reference job holds");
  }
  if (!offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned()) return std::string("malformed data_offsets");
  auto begin = offsets[0].get<uint64_t>(), end = offsets[1].get<uint64_t>();
  if (begin > end || end > data_size || end - begin != numel * element)
    return std::string("data_offsets do not fit the shape or the file");
  t.bytes.assign(data + begin, end - begin);
  return t;
}

}  // namespace

size_t safetensors_element_bytes(const std::string& dtype) {
  if (dtype == "F32") return 4;
  if (dtype == "F64" || dtype == "I64") return 8;
  if (dtype == "I8") return 1;
  return 0;
}

std::variant<SafetensorsContent, std::string> parse_safetensors(const std::string& bytes) {
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
  SafetensorsContent content;
  std::vector<std::tuple<uint64_t, uint64_t, std::string>> ranges;  // [begin, end) of each tensor's bytes
  for (const auto& [key, info] : header.items()) {
    if (key == "__metadata__") {
      if (!info.is_object()) return std::string("__metadata__ is not an object");
      for (const auto& [k, v] : info.items())
        if (v.is_string()) content.metadata[k] = v.get<std::string>();
      continue;
    }
    auto t = read_tensor(key, info, bytes.data() + data_start, bytes.size() - data_start);
    if (auto* error = std::get_if<std::string>(&t)) return "tensor '" + key + "': " + *error;
    content.tensors.push_back(std::move(std::get<RawTensor>(t)));
    ranges.push_back({info["data_offsets"][0].get<uint64_t>(), info["data_offsets"][1].get<uint64_t>(), key});
  }
  // The safetensors library refuses tensors whose bytes overlap (one byte, two meanings): so does dlready.
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i)
    if (std::get<0>(ranges[i]) < std::get<1>(ranges[i - 1]))
      return "tensors '" + std::get<2>(ranges[i - 1]) + "' and '" + std::get<2>(ranges[i]) + "' overlap in the file";
  return content;
}

std::string serialize_safetensors(const SafetensorsContent& content) {
  nlohmann::json header = nlohmann::json::object();
  if (!content.metadata.empty()) header["__metadata__"] = content.metadata;
  std::string data;
  for (const auto& t : content.tensors) {
    size_t begin = data.size();
    data += t.bytes;
    header[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {begin, data.size()}}};
  }
  std::string h = json_text(header);
  h.append((8 - h.size() % 8) % 8, ' ');  // the data starts 8-byte aligned, as the library writes it
  std::string out;
  put_little_endian(out, static_cast<uint64_t>(h.size()));
  return out + h + data;
}

}  // namespace dlready
