// Model weights in the files PyTorch users exchange: the tutorial's state_dict (fc1.weight,
// fc1.bias, fc2.weight, fc2.bias; the CNN's conv1/conv2/fc1/fc2 likewise) as .safetensors or as
// the .pt torch.save writes (torch_save_format.hpp), and dlready's own checkpoint.dlr. Every
// reader checks names, shapes, dtype and finiteness against the model before anything is used,
// and names the file in every error.
#pragma once
#include <optional>
#include <string>

#include "core/status.hpp"
#include "secure/secret_key.hpp"
#include "train/model.hpp"

namespace dlready {

// The "format" metadata of the int8 models `dlready quantize` writes (quantized_model.hpp).
inline constexpr const char* kInt8ModelFormat = "dlready.int8/1";

enum class WeightsFormat { checkpoint, pt, safetensors };
const char* to_string(WeightsFormat f);
// From a file name: .pt/.pth, .safetensors, .dlr; nullopt otherwise.
std::optional<WeightsFormat> format_of_name(const std::string& path);

struct ModelWeights {
  ModelKind kind = ModelKind::mlp;
  NamedTensors tensors;  // the model's parameters in its order, float32 on the CPU
  WeightsFormat format = WeightsFormat::checkpoint;
};

struct WeightsLoad {
  std::optional<ModelWeights> weights;
  std::string error;
};
// The bytes of a model file (a regular file, at most 1 GiB); nullopt with *error naming the file.
// `key`: the file must be sealed with it (--key-file, --passphrase-env); nullptr: plaintext.
std::optional<std::string> read_model_file(const std::string& path, SealingKey* key, std::string* error);
// Recognises the format by its first bytes (checkpoint magic, zip, safetensors header).
WeightsLoad load_weights(const std::string& path, SealingKey* key = nullptr);
// The same from bytes already read (tests, fuzzing); `name` is used in errors.
WeightsLoad parse_weights(const std::string& bytes, const std::string& name);

// `key`: seal the file (nullptr: the plain format, which PyTorch reads).
Status save_weights(const std::string& path, WeightsFormat format, const ModelWeights& weights, SealingKey* key = nullptr);

// Copies the weights into a model of the same kind (names and shapes were checked when loaded).
void load_into(const ReferenceModel& model, const ModelWeights& weights);

}  // namespace dlready
