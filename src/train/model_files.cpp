#include "train/model_files.hpp"

#include <cstring>
#include <map>

#include "core/atomic_file.hpp"
#include "core/bounded_file.hpp"
#include "core/json_text.hpp"
#include "core/text.hpp"
#include "train/checkpoint.hpp"
#include "train/torch_save_format.hpp"

namespace dlready {
namespace {

constexpr size_t kMaxModelBytes = size_t{1} << 30;      // far above any model of the reference job
constexpr uint64_t kMaxSafetensorsHeader = 100u << 20;  // the safetensors library's own limit

// The parameter names and shapes of each kind, from the model itself.
std::vector<std::pair<std::string, std::vector<int64_t>>> expected_shapes(ModelKind kind) {
  torch::NoGradGuard ng;
  std::vector<std::pair<std::string, std::vector<int64_t>>> out;
  for (const auto& [name, t] : make_model(kind, torch::kCPU).parameters()) out.emplace_back(name, t.sizes().vec());
  return out;
}

// Picks the model the tensors are the parameters of, in the model's order; an error names the
// first name or shape that fits neither.
WeightsLoad match_model(std::map<std::string, torch::Tensor> found, WeightsFormat format, const std::string& name) {
  ModelKind kind = found.count("conv1.weight") ? ModelKind::cnn : ModelKind::mlp;
  ModelWeights w;
  w.kind = kind;
  w.format = format;
  for (const auto& [param, shape] : expected_shapes(kind)) {
    auto it = found.find(param);
    if (it == found.end())
      return {std::nullopt, name + ": no tensor '" + param + "' (not a " + to_string(kind) + " state_dict)"};
    if (it->second.sizes().vec() != shape)
      return {std::nullopt, name + ": '" + param + "' has shape " + json_text(it->second.sizes().vec()) + ", the " +
                                to_string(kind) + " model needs " + json_text(shape)};
    if (it->second.scalar_type() != torch::kFloat)
      return {std::nullopt, name + ": '" + param + "' is not float32"};
    if (!it->second.isfinite().all().item<bool>()) return {std::nullopt, name + ": '" + param + "' holds inf/NaN"};
    w.tensors.emplace_back(param, it->second);
    found.erase(it);
  }
  if (!found.empty()) return {std::nullopt, name + ": unexpected tensor '" + found.begin()->first + "'"};
  return {std::move(w), ""};
}

WeightsLoad from_checkpoint(const std::string& bytes, const std::string& name) {
  auto ld = parse_checkpoint(bytes, name);
  if (!ld.checkpoint) return {std::nullopt, ld.error};
  std::map<std::string, torch::Tensor> params;
  for (const auto& [n, t] : ld.checkpoint->tensors)
    if (n.find('/') == std::string::npos) params[n] = t;  // optimizer and run state are "kind/name"
  return match_model(std::move(params), WeightsFormat::checkpoint, name);
}

// torch.save's file, read by our own zip reader and restricted unpickler (torch_save_format.cpp):
// LibTorch's unpickler turns the OrderedDict a state_dict is into None.
WeightsLoad from_pt(const std::string& bytes, const std::string& name) {
  auto read = read_torch_save_state_dict(bytes);
  if (auto* why = std::get_if<std::string>(&read)) return {std::nullopt, name + ": " + *why};
  std::map<std::string, torch::Tensor> params;
  for (auto& [param, t] : std::get<NamedTensors>(read)) params[param] = t;
  return match_model(std::move(params), WeightsFormat::pt, name);
}

WeightsLoad from_safetensors(const std::string& bytes, const std::string& name) {
  uint64_t header_len = 0;
  std::memcpy(&header_len, bytes.data(), sizeof header_len);
  if (header_len > kMaxSafetensorsHeader || header_len > bytes.size() - 8)
    return {std::nullopt, name + ": safetensors header length " + std::to_string(header_len) + " is past the file's end"};
  nlohmann::json header = nlohmann::json::parse(bytes.begin() + 8, bytes.begin() + 8 + static_cast<std::ptrdiff_t>(header_len),
                                                nullptr, /*allow_exceptions=*/false);
  if (!header.is_object()) return {std::nullopt, name + ": the safetensors header is not a JSON object"};
  const size_t data_start = 8 + header_len, data_size = bytes.size() - data_start;
  std::map<std::string, torch::Tensor> params;
  for (const auto& [key, info] : header.items()) {
    if (key == "__metadata__") continue;
    auto bad = [&](const std::string& why) { return WeightsLoad{std::nullopt, name + ": tensor '" + key + "': " + why}; };
    if (!info.is_object() || info.value("dtype", "") != "F32") return bad("dtype is not F32");
    auto shape = info.value("shape", nlohmann::json());
    auto offsets = info.value("data_offsets", nlohmann::json());
    if (!shape.is_array() || shape.size() > 4 || !offsets.is_array() || offsets.size() != 2) return bad("malformed entry");
    std::vector<int64_t> dims;
    int64_t numel = 1;
    for (const auto& d : shape) {
      if (!d.is_number_unsigned() || d.get<uint64_t>() > (1u << 24)) return bad("malformed shape");
      dims.push_back(d.get<int64_t>());
      numel *= dims.back();
    }
    if (!offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned()) return bad("malformed data_offsets");
    auto begin = offsets[0].get<uint64_t>(), end = offsets[1].get<uint64_t>();
    if (begin > end || end > data_size || end - begin != static_cast<uint64_t>(numel) * 4)
      return bad("data_offsets do not fit the shape or the file");
    auto t = torch::empty(dims, torch::kFloat);
    std::memcpy(t.data_ptr<float>(), bytes.data() + data_start + begin, end - begin);
    params[key] = t;
  }
  return match_model(std::move(params), WeightsFormat::safetensors, name);
}

std::string safetensors_bytes(const NamedTensors& tensors) {
  nlohmann::json header = {{"__metadata__", {{"format", "pt"}}}};
  std::string data;
  for (const auto& [name, t] : tensors) {
    auto c = t.detach().to(torch::kCPU, torch::kFloat).contiguous();
    size_t begin = data.size(), n = static_cast<size_t>(c.numel()) * sizeof(float);
    data.append(reinterpret_cast<const char*>(c.data_ptr<float>()), n);
    header[name] = {{"dtype", "F32"}, {"shape", c.sizes().vec()}, {"data_offsets", {begin, begin + n}}};
  }
  std::string h = json_text(header);
  h.append((8 - h.size() % 8) % 8, ' ');  // the data starts 8-byte aligned, as the library writes it
  std::string out(8, '\0');
  uint64_t len = h.size();
  std::memcpy(out.data(), &len, sizeof len);
  return out + h + data;
}

}  // namespace

const char* to_string(WeightsFormat f) {
  switch (f) {
    case WeightsFormat::checkpoint: return "checkpoint";
    case WeightsFormat::pt: return "pt";
    case WeightsFormat::safetensors: return "safetensors";
  }
  return "?";
}

std::optional<WeightsFormat> format_of_name(const std::string& path) {
  auto ends = [&](const std::string& s) { return path.size() >= s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0; };
  if (ends(".pt") || ends(".pth")) return WeightsFormat::pt;
  if (ends(".safetensors")) return WeightsFormat::safetensors;
  if (ends(".dlr")) return WeightsFormat::checkpoint;
  return std::nullopt;
}

WeightsLoad parse_weights(const std::string& bytes, const std::string& name) {
  if (bytes.size() >= 8 && bytes.compare(0, 7, "DLRCKPT") == 0) return from_checkpoint(bytes, name);
  if (bytes.size() >= 4 && bytes.compare(0, 4, "PK\x03\x04") == 0) return from_pt(bytes, name);
  if (bytes.size() >= 10 && bytes[8] == '{') return from_safetensors(bytes, name);
  return {std::nullopt, name + ": not a model file dlready knows (a dlready checkpoint, a .pt state_dict saved by "
                               "torch.save, or .safetensors)"};
}

WeightsLoad load_weights(const std::string& path) {
  auto read = read_regular_file(path, kMaxModelBytes, "a model file");
  if (!read.bytes) return {std::nullopt, read.error};
  try {
    return parse_weights(*read.bytes, path);
  } catch (const std::exception& e) {
    return {std::nullopt, path + ": " + first_line(e.what())};
  }
}

Status save_weights(const std::string& path, WeightsFormat format, const ModelWeights& w) {
  switch (format) {
    case WeightsFormat::pt: return write_file_atomically(path, torch_save_state_dict(w.tensors));
    case WeightsFormat::safetensors: return write_file_atomically(path, safetensors_bytes(w.tensors));
    case WeightsFormat::checkpoint: break;
  }
  Checkpoint ck;
  ck.meta = {{"run", {{"model", to_string(w.kind)}}}};
  ck.tensors = w.tensors;
  return save_checkpoint(path, ck);
}

void load_into(const ReferenceModel& model, const ModelWeights& w) {
  torch::NoGradGuard ng;
  std::map<std::string, torch::Tensor> by_name(w.tensors.begin(), w.tensors.end());
  for (auto& [name, p] : model.parameters()) p.copy_(by_name.at(name));
}

}  // namespace dlready
