#include "train/model_files.hpp"

#include <cstring>
#include <map>

#include "core/json_text.hpp"
#include "core/text.hpp"
#include "secure/sealed_file.hpp"
#include "train/checkpoint.hpp"
#include "train/safetensors_format.hpp"
#include "train/torch_save_format.hpp"

namespace dlready {
namespace {

constexpr size_t kMaxModelBytes = size_t{1} << 30;  // far above any model of the reference job

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
  auto read = read_safetensors(bytes);
  if (auto* why = std::get_if<std::string>(&read)) return {std::nullopt, name + ": " + *why};
  auto& file = std::get<SafetensorsFile>(read);
  if (file.metadata.count("format") && file.metadata.at("format") == kInt8ModelFormat)
    return {std::nullopt, name + ": an int8 model written by dlready quantize; dlready eval reads it, but this needs the "
                                 "float32 weights (the checkpoint it was quantized from)"};
  return match_model({file.tensors.begin(), file.tensors.end()}, WeightsFormat::safetensors, name);
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

std::optional<std::string> read_model_file(const std::string& path, SealingKey* key, std::string* error) {
  auto read = read_protected_file(path, key, kMaxModelBytes, "a model file");
  if (!read.bytes) *error = read.error;
  return std::move(read.bytes);
}

WeightsLoad load_weights(const std::string& path, SealingKey* key) {
  std::string error;
  auto bytes = read_model_file(path, key, &error);
  if (!bytes) return {std::nullopt, error};
  try {
    return parse_weights(*bytes, path);
  } catch (const std::exception& e) {
    return {std::nullopt, path + ": " + first_line(e.what())};
  }
}

Status save_weights(const std::string& path, WeightsFormat format, const ModelWeights& w, SealingKey* key) {
  switch (format) {
    case WeightsFormat::pt: return write_protected_file(path, torch_save_state_dict(w.tensors), key);
    case WeightsFormat::safetensors:
      return write_protected_file(path, safetensors_bytes({{{"format", "pt"}}, w.tensors}), key);
    case WeightsFormat::checkpoint: break;
  }
  Checkpoint ck;
  ck.meta = {{"run", {{"model", to_string(w.kind)}}}};
  ck.tensors = w.tensors;
  return save_checkpoint(path, ck, key);
}

void load_into(const ReferenceModel& model, const ModelWeights& w) {
  torch::NoGradGuard ng;
  std::map<std::string, torch::Tensor> by_name(w.tensors.begin(), w.tensors.end());
  for (auto& [name, p] : model.parameters()) p.copy_(by_name.at(name));
}

}  // namespace dlready
