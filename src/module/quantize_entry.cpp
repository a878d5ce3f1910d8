// `dlready quantize`: the int8 model of a checkpoint, written as a file `dlready eval` reads, and
// the comparison a user decides on — test accuracy, file size, CPU latency at batch 1 and
// throughput at batch 256, fp32 against int8, measured in this process the same way for both.
#include <cstdio>
#include <iostream>

#include "core/json_text.hpp"
#include "data/idx.hpp"
#include "module/module_entry.hpp"
#include "secure/sealed_file.hpp"
#include "torch_runtime/measure.hpp"
#include "train/batches.hpp"
#include "train/evaluation.hpp"
#include "train/quantized_model.hpp"

namespace dlready {
namespace {

struct Side {  // one model's figures
  Evaluation eval;
  size_t bytes = 0;
  double latency_s = 0, throughput = 0;  // batch 1: seconds per forward; batch 256: images per second
};

Side measure_side(const std::function<torch::Tensor(const torch::Tensor&)>& forward, const TensorData& data,
                  size_t bytes) {
  torch::NoGradGuard ng;
  ReferenceModel wrapped{std::make_shared<torch::nn::Module>(), forward};
  Side s;
  s.eval = evaluate(wrapped, data.test_x, data.test_y, torch::kCPU);
  s.bytes = bytes;
  auto one = normalize_batch(data.test_x.narrow(0, 0, 1));
  auto batch = normalize_batch(data.test_x.narrow(0, 0, std::min<int64_t>(256, data.test_x.size(0))));
  Recipe recipe;
  recipe.samples = 15;
  s.latency_s = measure([&] { (void)forward(one); }, [] {}, recipe).median_s;
  s.throughput = static_cast<double>(batch.size(0)) / measure([&] { (void)forward(batch); }, [] {}, recipe).median_s;
  return s;
}

nlohmann::json report_json(const ModelOptions& o, const QuantizedModel& q, const std::string& engine, const Side& fp32,
                           const Side& int8) {
  nlohmann::json j = {{"schema", "dlready.quantize/1"},
                      {"checkpoint", o.input},
                      {"out", o.out},
                      {"kind", to_string(q.kind)},
                      {"scheme", to_string(q.scheme)},
                      {"engine", engine},
                      {"threads", torch::get_num_threads()},
                      {"fp32_test_acc", fp32.eval.test_acc},
                      {"int8_test_acc", int8.eval.test_acc},
                      {"fp32_test_loss", fp32.eval.test_loss},
                      {"int8_test_loss", int8.eval.test_loss},
                      {"fp32_bytes", fp32.bytes},
                      {"int8_bytes", int8.bytes},
                      {"fp32_latency_us_batch1", 1e6 * fp32.latency_s},
                      {"int8_latency_us_batch1", 1e6 * int8.latency_s},
                      {"fp32_images_per_s_batch256", fp32.throughput},
                      {"int8_images_per_s_batch256", int8.throughput}};
  if (q.scheme == QuantScheme::static_ranges) j["calibration_images"] = o.calibration;
  return j;
}

void print_report(const ModelOptions& o, const QuantizedModel& q, const std::string& engine, const Side& fp32,
                  const Side& int8) {
  std::printf("wrote %s: %s int8 (%s, engine %s, %d thread(s)); dlready eval reads it\n", o.out.c_str(),
              to_string(q.kind), to_string(q.scheme), engine.c_str(), torch::get_num_threads());
  std::printf("%-26s %12s %12s %10s\n", "", "fp32", "int8", "int8/fp32");
  std::printf("%-26s %11.2f%% %11.2f%% %+9.2f pt\n", "test accuracy", 100 * fp32.eval.test_acc,
              100 * int8.eval.test_acc, 100 * (int8.eval.test_acc - fp32.eval.test_acc));
  std::printf("%-26s %12zu %12zu %9.2fx\n", "file bytes", fp32.bytes, int8.bytes,
              static_cast<double>(int8.bytes) / static_cast<double>(fp32.bytes));
  std::printf("%-26s %12.1f %12.1f %9.2fx\n", "latency, batch 1 (us)", 1e6 * fp32.latency_s, 1e6 * int8.latency_s,
              int8.latency_s / fp32.latency_s);
  std::printf("%-26s %12.0f %12.0f %9.2fx\n", "images/s, batch 256", fp32.throughput, int8.throughput,
              int8.throughput / fp32.throughput);
  if (100 * (fp32.eval.test_acc - int8.eval.test_acc) > 0.5)
    std::printf("note: int8 loses more than 0.5 points here; try --scheme %s\n",
                q.scheme == QuantScheme::dynamic ? "static" : "dynamic (or more --calibration images)");
}

}  // namespace

ExitCode run_quantize_command(const ModelOptions& o, const ModelWeights& w, SealingKey* key) {
  const std::optional<std::string> engine = quantized_engine();
  if (!engine) {
    std::fprintf(stderr, "dlready quantize: this LibTorch has no quantized CPU engine (fbgemm/x86/qnnpack)\n");
    return ExitCode::failed;
  }
  auto ds = load_mnist(o.data);
  if (!ds.dataset) {
    std::fprintf(stderr, "dlready quantize: %s\n", ds.error.c_str());
    return ExitCode::failed;
  }
  auto data = to_tensors_taking_images(*ds.dataset, 0, torch::kCPU);
  auto scheme = o.scheme == "static" ? QuantScheme::static_ranges : QuantScheme::dynamic;
  auto calibration = normalize_batch(data.train_x.narrow(0, 0, std::min<int64_t>(o.calibration, data.train_x.size(0))));
  const std::string bytes = safetensors_bytes(to_file(quantize_model(w, scheme, calibration)));
  // What is measured is the model read back from the bytes written, not the one in memory.
  auto read = from_file(std::get<SafetensorsFile>(read_safetensors(bytes)));
  if (auto* why = std::get_if<std::string>(&read)) {
    std::fprintf(stderr, "dlready quantize: the int8 model does not read back: %s\n", why->c_str());
    return ExitCode::failed;
  }
  const auto& q = std::get<QuantizedModel>(read);
  if (auto st = write_protected_file(o.out, bytes, key); !st) {
    std::fprintf(stderr, "dlready quantize: %s\n", st.error().c_str());
    return ExitCode::failed;
  }
  auto fp32_model = make_model(w.kind, torch::kCPU);
  load_into(fp32_model, w);
  fp32_model.module->eval();
  auto fp32 = measure_side(fp32_model.forward, data, safetensors_bytes({{{"format", "pt"}}, w.tensors}).size());
  auto int8 = measure_side([&q](const torch::Tensor& x) { return q.forward(x); }, data, bytes.size());
  if (o.json)
    std::cout << json_text(report_json(o, q, *engine, fp32, int8), 2) << std::endl;
  else
    print_report(o, q, *engine, fp32, int8);
  return ExitCode::ok;
}

}  // namespace dlready
