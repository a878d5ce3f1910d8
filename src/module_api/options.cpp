#include "module_api/module_abi.hpp"

#include <stdexcept>

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

nlohmann::json to_json(const TrainOptions& o) {
  return {{"data", o.data}, {"model", to_string(o.model)}, {"optimizer", to_string(o.optimizer)},
          {"device", o.device}, {"engine", to_string(o.engine)}, {"out", o.out}, {"epochs", o.epochs},
          {"batch_size", o.batch_size}, {"lr", o.lr}, {"momentum", o.momentum}, {"seed", o.seed},
          {"threads", o.threads}, {"checkpoint_every", o.checkpoint_every}, {"amp", to_string(o.amp)},
          {"cuda_graphs", o.cuda_graphs}, {"empty_cache", o.empty_cache}, {"limit_train", o.limit_train},
          {"rank", o.rank}, {"world_size", o.world_size}, {"master_port", o.master_port},
          {"master_addr", o.master_addr}, {"dist_timeout", o.dist_timeout}, {"resume", o.resume},
          {"json", o.json}, {"progress", o.progress}};
}

TrainOptions train_options_from_json(const nlohmann::json& j) {
  TrainOptions o;
  auto text = [&](const char* k) { return j.at(k).get<std::string>(); };
  o.data = text("data");
  o.model = required(parse_model(text("model")), "model", text("model"));
  o.optimizer = required(parse_optimizer(text("optimizer")), "optimizer", text("optimizer"));
  o.device = text("device");
  o.engine = required(parse_engine(text("engine")), "engine", text("engine"));
  o.out = text("out");
  j.at("epochs").get_to(o.epochs);
  j.at("batch_size").get_to(o.batch_size);
  j.at("lr").get_to(o.lr);
  j.at("momentum").get_to(o.momentum);
  j.at("seed").get_to(o.seed);
  j.at("threads").get_to(o.threads);
  j.at("checkpoint_every").get_to(o.checkpoint_every);
  o.amp = required(parse_amp(text("amp")), "amp", text("amp"));
  j.at("cuda_graphs").get_to(o.cuda_graphs);
  j.at("empty_cache").get_to(o.empty_cache);
  j.at("limit_train").get_to(o.limit_train);
  j.at("rank").get_to(o.rank);
  j.at("world_size").get_to(o.world_size);
  j.at("master_port").get_to(o.master_port);
  o.master_addr = text("master_addr");
  j.at("dist_timeout").get_to(o.dist_timeout);
  j.at("resume").get_to(o.resume);
  j.at("json").get_to(o.json);
  j.at("progress").get_to(o.progress);
  return o;
}

nlohmann::json to_json(const VerifyOptions& o) {
  return {{"device", o.device}, {"level", o.level}, {"json", o.json}};
}

VerifyOptions verify_options_from_json(const nlohmann::json& j) {
  VerifyOptions o;
  j.at("device").get_to(o.device);
  j.at("level").get_to(o.level);
  j.at("json").get_to(o.json);
  return o;
}

nlohmann::json to_json(const BenchOptions& o) {
  return {{"what", o.what}, {"device", o.device}, {"sizes", o.sizes}, {"samples", o.samples},
          {"data", o.data}, {"kernels", o.kernels}, {"steps", o.steps}, {"json", o.json}};
}

BenchOptions bench_options_from_json(const nlohmann::json& j) {
  BenchOptions o;
  j.at("what").get_to(o.what);
  j.at("device").get_to(o.device);
  j.at("sizes").get_to(o.sizes);
  j.at("samples").get_to(o.samples);
  j.at("data").get_to(o.data);
  j.at("kernels").get_to(o.kernels);
  j.at("steps").get_to(o.steps);
  j.at("json").get_to(o.json);
  return o;
}

}  // namespace dlready
