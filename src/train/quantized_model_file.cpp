// Reading an int8 model back (quantized_model.hpp): every tensor's name, dtype, shape and range is
// checked against the model the metadata names before anything is packed, so a damaged or foreign
// file is one line naming what is wrong, never a kernel's assertion.
#include <cmath>
#include <map>

#include "core/json_text.hpp"
#include "train/quantized_model.hpp"

namespace dlready {
namespace {

using TensorMap = std::map<std::string, torch::Tensor>;
// Far above any real scale, and far below what would overflow the kernels' float arithmetic.
constexpr double kMaxScale = 1e10;

// Takes `name` out of `found` if it has the dtype and shape; the error says which did not fit.
std::variant<torch::Tensor, std::string> take(TensorMap& found, const std::string& name, torch::ScalarType dtype,
                                              const std::vector<int64_t>& shape) {
  auto it = found.find(name);
  if (it == found.end()) return "no tensor '" + name + "'";
  auto t = it->second;
  found.erase(it);
  if (t.scalar_type() != dtype) return "'" + name + "' is " + std::string(c10::toString(t.scalar_type())) + ", not " +
                                       c10::toString(dtype);
  if (t.sizes().vec() != shape)
    return "'" + name + "' has shape " + json_text(t.sizes().vec()) + ", the model needs " + json_text(shape);
  if (t.is_floating_point() && !t.isfinite().all().item<bool>()) return "'" + name + "' holds inf/NaN";
  return t;
}

std::variant<QuantParams, std::string> take_qparams(TensorMap& found, const std::string& name) {
  auto t = take(found, name, torch::kDouble, {2});
  if (auto* why = std::get_if<std::string>(&t)) return *why;
  auto* v = std::get<torch::Tensor>(t).data_ptr<double>();
  if (!(v[0] > 0 && v[0] <= kMaxScale) || v[1] < 0 || v[1] > 255 || v[1] != std::floor(v[1]))
    return "'" + name + "' is not a scale in (0, 1e10] and a zero point in 0..255";
  return QuantParams{v[0], static_cast<int64_t>(v[1])};
}

// One layer: the int8 weight rebuilt from its integers and per-channel scales, or a float weight.
std::variant<QuantizedLayer, std::string> read_layer(TensorMap& found, const std::string& name,
                                                     const std::vector<int64_t>& shape, QuantScheme scheme) {
  QuantizedLayer l;
  l.name = name;
  bool int8 = scheme == QuantScheme::static_ranges || shape.size() != 4;
  auto weight = take(found, name + ".weight", int8 ? torch::kChar : torch::kFloat, shape);
  if (auto* why = std::get_if<std::string>(&weight)) return *why;
  auto bias = take(found, name + ".bias", torch::kFloat, {shape[0]});
  if (auto* why = std::get_if<std::string>(&bias)) return *why;
  l.bias = std::get<torch::Tensor>(bias);
  l.weight = std::get<torch::Tensor>(weight);
  if (int8) {
    auto scales = take(found, name + ".weight_scale", torch::kDouble, {shape[0]});
    if (auto* why = std::get_if<std::string>(&scales)) return *why;
    auto& s = std::get<torch::Tensor>(scales);
    if (!((s > 0) & (s <= kMaxScale)).all().item<bool>())
      return "'" + name + ".weight_scale' holds a scale outside (0, 1e10]";
    l.weight = at::_make_per_channel_quantized_tensor(l.weight, s, torch::zeros({shape[0]}, torch::kLong), 0);
  }
  if (scheme == QuantScheme::static_ranges) {
    auto out = take_qparams(found, name + ".output_qparams");
    if (auto* why = std::get_if<std::string>(&out)) return *why;
    l.output = std::get<QuantParams>(out);
  }
  return l;
}

}  // namespace

std::variant<QuantizedModel, std::string> from_file(const SafetensorsFile& file) {
  auto meta = [&](const char* key) { return file.metadata.count(key) ? file.metadata.at(key) : std::string(); };
  if (meta("format") != kInt8ModelFormat) return std::string("not an int8 model written by dlready quantize");
  auto kind = parse_model(meta("model"));
  if (!kind) return "metadata 'model' is '" + meta("model") + "', not mlp or cnn";
  if (meta("scheme") != "dynamic" && meta("scheme") != "static")
    return "metadata 'scheme' is '" + meta("scheme") + "', not dynamic or static";
  QuantizedModel m;
  m.kind = *kind;
  m.scheme = meta("scheme") == "dynamic" ? QuantScheme::dynamic : QuantScheme::static_ranges;
  TensorMap found(file.tensors.begin(), file.tensors.end());
  if (m.scheme == QuantScheme::static_ranges) {
    auto in = take_qparams(found, "input_qparams");
    if (auto* why = std::get_if<std::string>(&in)) return *why;
    m.input = std::get<QuantParams>(in);
  }
  torch::NoGradGuard ng;
  auto params = make_model(m.kind, torch::kCPU).parameters();
  for (size_t i = 0; i + 1 < params.size(); i += 2) {  // weight, bias of each layer in order
    const auto& [weight_name, weight] = params[i];
    auto layer = read_layer(found, weight_name.substr(0, weight_name.find('.')), weight.sizes().vec(), m.scheme);
    if (auto* why = std::get_if<std::string>(&layer)) return *why;
    m.layers.push_back(std::move(std::get<QuantizedLayer>(layer)));
    m.layers.back().relu = i + 2 < params.size();  // every layer but the last is followed by a ReLU
  }
  if (!found.empty()) return "unexpected tensor '" + found.begin()->first + "'";
  for (auto& l : m.layers) pack_for_engine(l);
  return m;
}

}  // namespace dlready
