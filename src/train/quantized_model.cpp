#include "train/quantized_model.hpp"

#include <ATen/core/dispatch/Dispatcher.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "core/text.hpp"

namespace dlready {
namespace {

namespace F = torch::nn::functional;

struct LayerShape {
  const char* name;
  bool relu;
};
std::vector<LayerShape> layer_shapes(ModelKind kind) {
  if (kind == ModelKind::cnn) return {{"conv1", true}, {"conv2", true}, {"fc1", true}, {"fc2", false}};
  return {{"fc1", true}, {"fc2", false}};
}

bool quantizes(QuantScheme scheme, const torch::Tensor& weight) {
  return scheme == QuantScheme::static_ranges || weight.dim() != 4;  // dynamic: Linear layers only
}

// Symmetric per-channel int8 (zero point 0), as PyTorch's per-channel weight observer for the x86 engine.
torch::Tensor quantize_weight(const torch::Tensor& w) {
  auto amax = w.abs().flatten(1).amax(1).to(torch::kDouble);
  auto scales = (amax / 127.5).clamp_min(std::numeric_limits<float>::epsilon());
  return at::quantize_per_channel(w, scales, torch::zeros(scales.sizes(), torch::kLong), 0, torch::kQInt8);
}

// Activations as uint8 over 0..127 (reduce_range), which the x86 engine needs to keep its 16-bit
// intermediate sums from saturating; the range always includes 0 so ReLU's zeros are exact.
QuantParams range_of(const torch::Tensor& t) {
  double lo = std::min(0.0, t.min().item<double>()), hi = std::max(0.0, t.max().item<double>());
  QuantParams q;
  q.scale = std::max((hi - lo) / 127.0, static_cast<double>(std::numeric_limits<float>::epsilon()));
  q.zero_point = std::clamp<int64_t>(std::llround(-lo / q.scale), 0, 127);
  return q;
}

torch::Tensor max_pool(const torch::Tensor& h) { return torch::max_pool2d(h, {2, 2}, {2, 2}, {0, 0}, {1, 1}); }

torch::Tensor float_layer(const torch::Tensor& h, const torch::Tensor& w, const torch::Tensor& b, bool relu) {
  auto y = w.dim() == 4 ? F::conv2d(h, w, F::Conv2dFuncOptions().bias(b)) : F::linear(h.flatten(1), w, b);
  return relu ? torch::relu(y) : y;
}

torch::Tensor int8_layer(const QuantizedLayer& l, const torch::Tensor& h, QuantScheme scheme) {
  if (l.is_conv()) {
    if (!l.conv) return float_layer(h, l.weight, l.bias, l.relu);
    return l.relu ? l.conv->apply_relu(h, l.output.scale, l.output.zero_point)
                  : l.conv->apply(h, l.output.scale, l.output.zero_point);
  }
  auto x = h.dim() > 2 ? h.flatten(1) : h;
  if (scheme == QuantScheme::dynamic)  // reduce_range as torch's dynamic Linear does on x86
    return l.relu ? l.linear->apply_dynamic_relu(x, /*reduce_range=*/true) : l.linear->apply_dynamic(x, true);
  return l.relu ? l.linear->apply_relu(x, l.output.scale, l.output.zero_point)
                : l.linear->apply(x, l.output.scale, l.output.zero_point);
}

}  // namespace

// LibTorch's prepack operators, called through the dispatcher as torch.ops.quantized does.
void pack_for_engine(QuantizedLayer& l) {
  if (!l.weight.is_quantized()) return;
  auto& dispatcher = c10::Dispatcher::singleton();
  if (l.is_conv()) {
    auto op = dispatcher.findSchemaOrThrow("quantized::conv2d_prepack", "");
    torch::jit::Stack stack{l.weight, std::optional<at::Tensor>(l.bias), c10::List<int64_t>({1, 1}),
                            c10::List<int64_t>({0, 0}), c10::List<int64_t>({1, 1}), int64_t{1}};
    op.callBoxed(&stack);
    l.conv = stack.at(0).toCustomClass<ConvPackedParamsBase<2>>();
  } else {
    auto op = dispatcher.findSchemaOrThrow("quantized::linear_prepack", "");
    torch::jit::Stack stack{l.weight, std::optional<at::Tensor>(l.bias)};
    op.callBoxed(&stack);
    l.linear = stack.at(0).toCustomClass<LinearPackedParamsBase>();
  }
}

const char* to_string(QuantScheme s) { return s == QuantScheme::dynamic ? "dynamic" : "static"; }

std::optional<std::string> quantized_engine() {
  auto engine = at::globalContext().qEngine();
  if (engine == at::QEngine::NoQEngine) return std::nullopt;
  return to_lower(c10::toString(engine));  // "X86"; Python's torch.backends.quantized.engine says "x86"
}

torch::Tensor QuantizedModel::forward(const torch::Tensor& x) const {
  auto h = kind == ModelKind::cnn ? x.view({-1, 1, 28, 28}) : x;
  if (scheme == QuantScheme::static_ranges) h = at::quantize_per_tensor(h, input.scale, input.zero_point, torch::kQUInt8);
  for (const auto& l : layers) {
    h = int8_layer(l, h, scheme);
    if (l.is_conv()) h = max_pool(h);
  }
  return h.is_quantized() ? h.dequantize() : h;
}

QuantizedModel quantize_model(const ModelWeights& w, QuantScheme scheme, const torch::Tensor& calibration) {
  torch::NoGradGuard ng;
  std::map<std::string, torch::Tensor> by_name(w.tensors.begin(), w.tensors.end());
  QuantizedModel m;
  m.kind = w.kind;
  m.scheme = scheme;
  auto h = w.kind == ModelKind::cnn ? calibration.view({-1, 1, 28, 28}) : calibration;
  if (scheme == QuantScheme::static_ranges) m.input = range_of(h);
  for (const auto& shape : layer_shapes(w.kind)) {
    QuantizedLayer l;
    l.name = shape.name;
    l.relu = shape.relu;
    auto weight = by_name.at(l.name + ".weight").detach();
    l.bias = by_name.at(l.name + ".bias").detach().contiguous();
    l.weight = quantizes(scheme, weight) ? quantize_weight(weight) : weight.contiguous();
    if (scheme == QuantScheme::static_ranges) {
      h = float_layer(h, weight, l.bias, l.relu);  // the fp32 model's activations set the ranges
      l.output = range_of(h);
      if (l.is_conv()) h = max_pool(h);
    }
    pack_for_engine(l);
    m.layers.push_back(std::move(l));
  }
  return m;
}

SafetensorsFile to_file(const QuantizedModel& m) {
  SafetensorsFile f;
  f.metadata = {{"format", kInt8ModelFormat}, {"model", to_string(m.kind)}, {"scheme", to_string(m.scheme)}};
  auto qparams = [](const QuantParams& q) {
    return torch::tensor({q.scale, static_cast<double>(q.zero_point)}, torch::kDouble);
  };
  if (m.scheme == QuantScheme::static_ranges) f.tensors.emplace_back("input_qparams", qparams(m.input));
  for (const auto& l : m.layers) {
    if (l.weight.is_quantized()) {
      f.tensors.emplace_back(l.name + ".weight", l.weight.int_repr());
      f.tensors.emplace_back(l.name + ".weight_scale", l.weight.q_per_channel_scales().to(torch::kDouble));
    } else {
      f.tensors.emplace_back(l.name + ".weight", l.weight);
    }
    f.tensors.emplace_back(l.name + ".bias", l.bias);
    if (m.scheme == QuantScheme::static_ranges) f.tensors.emplace_back(l.name + ".output_qparams", qparams(l.output));
  }
  return f;
}

}  // namespace dlready
