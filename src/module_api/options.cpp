#include "module_api/module_abi.hpp"

#include <stdexcept>
#include <type_traits>

namespace dlready {
namespace {

template <class Enum, size_t N>
const char* name_of(Enum v, const std::pair<Enum, const char*> (&names)[N]) {
  for (const auto& [e, s] : names)
    if (e == v) return s;
  return "?";
}

template <class Enum, size_t N>
std::optional<Enum> value_of(std::string_view s, const std::pair<Enum, const char*> (&names)[N]) {
  for (const auto& [e, n] : names)
    if (s == n) return e;
  return std::nullopt;
}

constexpr std::pair<ModelKind, const char*> kModels[] = {{ModelKind::mlp, "mlp"}, {ModelKind::cnn, "cnn"}};
constexpr std::pair<OptimizerKind, const char*> kOptimizers[] = {{OptimizerKind::adam, "adam"},
                                                                 {OptimizerKind::sgd, "sgd"}};
constexpr std::pair<Engine, const char*> kEngines[] = {
    {Engine::automatic, "auto"}, {Engine::fused, "fused"}, {Engine::autograd, "autograd"}};
constexpr std::pair<AmpMode, const char*> kAmpModes[] = {
    {AmpMode::off, "off"}, {AmpMode::bf16, "bf16"}, {AmpMode::fp16, "fp16"}};

template <class T>
T required(std::optional<T> v, const char* field, const std::string& text) {
  if (!v) throw std::invalid_argument(std::string(field) + ": unknown value '" + text + "'");
  return *v;
}

}  // namespace

const char* to_string(ModelKind v) { return name_of(v, kModels); }
const char* to_string(OptimizerKind v) { return name_of(v, kOptimizers); }
const char* to_string(Engine v) { return name_of(v, kEngines); }
const char* to_string(AmpMode v) { return name_of(v, kAmpModes); }
std::optional<ModelKind> parse_model(std::string_view s) { return value_of(s, kModels); }
std::optional<OptimizerKind> parse_optimizer(std::string_view s) { return value_of(s, kOptimizers); }
std::optional<Engine> parse_engine(std::string_view s) { return value_of(s, kEngines); }
std::optional<AmpMode> parse_amp(std::string_view s) { return value_of(s, kAmpModes); }

namespace {

// Every option once, in one list per struct: the writer and the reader walk the same list, so the
// two directions cannot drift apart.
template <class Options, class Visit>
void train_fields(Options& o, Visit&& v) {
  v("data", o.data), v("model", o.model), v("optimizer", o.optimizer), v("device", o.device);
  v("engine", o.engine), v("out", o.out), v("epochs", o.epochs), v("batch_size", o.batch_size);
  v("lr", o.lr), v("momentum", o.momentum), v("seed", o.seed), v("threads", o.threads);
  v("checkpoint_every", o.checkpoint_every), v("amp", o.amp), v("cuda_graphs", o.cuda_graphs);
  v("empty_cache", o.empty_cache), v("limit_train", o.limit_train), v("rank", o.rank);
  v("world_size", o.world_size), v("master_port", o.master_port), v("master_addr", o.master_addr);
  v("dist_timeout", o.dist_timeout), v("resume", o.resume), v("overwrite", o.overwrite), v("json", o.json);
  v("progress", o.progress), v("tensorboard", o.tensorboard), v("init", o.init), v("key_file", o.key_file);
  v("passphrase_env", o.passphrase_env), v("audit_log", o.audit_log), v("audit_sign_key", o.audit_sign_key);
  v("busy_sample", o.busy_sample);
}

template <class Options, class Visit>
void model_fields(Options& o, Visit&& v) {
  v("action", o.action), v("input", o.input), v("out", o.out), v("format", o.format), v("data", o.data);
  v("scheme", o.scheme), v("calibration", o.calibration), v("json", o.json), v("key_file", o.key_file);
  v("passphrase_env", o.passphrase_env), v("audit_log", o.audit_log), v("audit_sign_key", o.audit_sign_key);
  v("decrypt", o.decrypt), v("threads", o.threads), v("overwrite", o.overwrite);
}

template <class Options, class Visit>
void verify_fields(Options& o, Visit&& v) {
  v("device", o.device), v("level", o.level), v("require_gpu", o.require_gpu), v("json", o.json);
}

template <class Options, class Visit>
void bench_fields(Options& o, Visit&& v) {
  v("what", o.what), v("device", o.device), v("sizes", o.sizes), v("samples", o.samples);
  v("data", o.data), v("kernels", o.kernels), v("steps", o.steps), v("threads", o.threads), v("json", o.json);
}

template <class T>
nlohmann::json value_json(const T& v) {
  if constexpr (std::is_enum_v<T>) return to_string(v);
  else return v;
}

template <class T>
void read_value(const nlohmann::json& j, const char* key, T& out) {
  if constexpr (std::is_same_v<T, ModelKind>) out = required(parse_model(j.get<std::string>()), key, j.get<std::string>());
  else if constexpr (std::is_same_v<T, OptimizerKind>) out = required(parse_optimizer(j.get<std::string>()), key, j.get<std::string>());
  else if constexpr (std::is_same_v<T, Engine>) out = required(parse_engine(j.get<std::string>()), key, j.get<std::string>());
  else if constexpr (std::is_same_v<T, AmpMode>) out = required(parse_amp(j.get<std::string>()), key, j.get<std::string>());
  else j.get_to(out);
}

template <class Options, class Fields>
nlohmann::json write(const Options& o, Fields fields) {
  nlohmann::json j = nlohmann::json::object();
  fields(o, [&](const char* key, const auto& v) { j[key] = value_json(v); });
  return j;
}

// Throws nlohmann::json::exception for a missing key or a wrong type, std::invalid_argument for an
// unknown enum name.
template <class Options, class Fields>
Options read(const nlohmann::json& j, Fields fields) {
  Options o;
  fields(o, [&](const char* key, auto& v) { read_value(j.at(key), key, v); });
  return o;
}

}  // namespace

nlohmann::json to_json(const TrainOptions& o) {
  return write(o, [](auto& x, auto&& v) { train_fields(x, v); });
}
TrainOptions train_options_from_json(const nlohmann::json& j) {
  return read<TrainOptions>(j, [](auto& x, auto&& v) { train_fields(x, v); });
}
nlohmann::json to_json(const VerifyOptions& o) {
  return write(o, [](auto& x, auto&& v) { verify_fields(x, v); });
}
VerifyOptions verify_options_from_json(const nlohmann::json& j) {
  return read<VerifyOptions>(j, [](auto& x, auto&& v) { verify_fields(x, v); });
}
nlohmann::json to_json(const BenchOptions& o) {
  return write(o, [](auto& x, auto&& v) { bench_fields(x, v); });
}
BenchOptions bench_options_from_json(const nlohmann::json& j) {
  return read<BenchOptions>(j, [](auto& x, auto&& v) { bench_fields(x, v); });
}
nlohmann::json to_json(const ModelOptions& o) {
  return write(o, [](auto& x, auto&& v) { model_fields(x, v); });
}
ModelOptions model_options_from_json(const nlohmann::json& j) {
  return read<ModelOptions>(j, [](auto& x, auto&& v) { model_fields(x, v); });
}

const std::vector<BenchSectionName>& bench_sections() {
  static const std::vector<BenchSectionName> kSections = {
      {"gemm", "matrix multiplication per dtype against the device's peak"},
      {"copy", "host-device and device-device copies"},
      {"train", "the reference training step's throughput"},
      {"floor", "CUDA: the launch-bound floor of a step"},
  };
  return kSections;
}

}  // namespace dlready
