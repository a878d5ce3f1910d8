// An int8 SimpleNet or CNN on LibTorch's own quantized CPU kernels (the x86/fbgemm engine behind
// torch.ao.quantization): the tutorial's optimisation section names model quantization for
// compression. Weights are int8 per output channel (symmetric); "dynamic" quantizes each batch's
// activations as it comes (torch's quantize_dynamic: Linear layers only, convolutions stay
// float), "static" fixes every activation's range once from calibration images, so the convolutions
// are int8 too and activations stay int8 from the input to the logits.
#pragma once
#include <ATen/native/quantized/PackedParams.h>
#include <torch/torch.h>

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "train/model_files.hpp"
#include "train/safetensors_format.hpp"

namespace dlready {

enum class QuantScheme { dynamic, static_ranges };
const char* to_string(QuantScheme s);  // "dynamic" | "static"

struct QuantParams {  // an activation's affine uint8 mapping: real = scale * (q - zero_point)
  double scale = 1;
  int64_t zero_point = 0;
};

struct QuantizedLayer {
  std::string name;        // fc1, conv1, ... as in the fp32 state_dict
  bool relu = false;       // a ReLU follows (fused into the int8 kernel)
  torch::Tensor weight;    // qint8, per output channel; float for a convolution kept float (dynamic)
  torch::Tensor bias;      // float32
  QuantParams output;      // static: the range of this layer's output, after its ReLU
  c10::intrusive_ptr<LinearPackedParamsBase> linear;    // the weight packed for the engine
  c10::intrusive_ptr<ConvPackedParamsBase<2>> conv;     // (one of the two, or neither: a float conv)
  bool is_conv() const { return weight.dim() == 4; }
};

struct QuantizedModel {
  ModelKind kind = ModelKind::mlp;
  QuantScheme scheme = QuantScheme::dynamic;
  QuantParams input;  // static: the normalised images' range
  std::vector<QuantizedLayer> layers;
  // Normalised images [B, 784] -> float logits [B, 10].
  torch::Tensor forward(const torch::Tensor& x) const;
};

// Packs an int8 layer's weight and bias for the engine (LibTorch's prepack operators); a float layer is left as is.
void pack_for_engine(QuantizedLayer& l);

// calibration: normalised training images (static only; their activations' min and max set the ranges).
QuantizedModel quantize_model(const ModelWeights& w, QuantScheme scheme, const torch::Tensor& calibration);

// As a safetensors file: int8 weights with their per-channel scales, float biases, the activation
// ranges; metadata {"format": kInt8ModelFormat, "model", "scheme"}. Python reads it with
// safetensors.torch.load_file.
SafetensorsFile to_file(const QuantizedModel& m);
// The reverse, checking every shape, dtype and range against the model it claims to be.
std::variant<QuantizedModel, std::string> from_file(const SafetensorsFile& file);

// The quantized engine LibTorch uses here ("x86", "fbgemm", ...), or "" when it has none.
[[nodiscard]] std::optional<std::string> quantized_engine();

}  // namespace dlready
