// `dlready quantize`: an int8 SimpleNet (and CNN) on LibTorch's quantized kernels that keeps the
// fp32 accuracy within half a point at under 0.3x the size; the file it writes is what `dlready
// eval` evaluates and what Python reads with safetensors; a damaged int8 file is one line naming it.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <nlohmann/json.hpp>

#include "fixture.hpp"
#include "train/quantized_model.hpp"

namespace dlready::test {
namespace {

const std::string kData = "/usr/share/datasets/fashion-mnist";
std::string bin() { return DLREADY_BINARY; }

nlohmann::json json_of(const std::string& cmd) {
  auto out = command_output(cmd);
  auto j = nlohmann::json::parse(out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << cmd << "\n" << out;
  return j;
}

void expect_targets(const nlohmann::json& r, double points) {
  SCOPED_TRACE(r.dump());
  EXPECT_NEAR(r["int8_test_acc"].get<double>(), r["fp32_test_acc"].get<double>(), points / 100);
  EXPECT_GT(r["fp32_test_acc"].get<double>(), 0.75);
  EXPECT_GT(r["int8_latency_us_batch1"].get<double>(), 0);
  EXPECT_GT(r["int8_images_per_s_batch256"].get<double>(), 0);
}

TEST(Quantize, Int8SimpleNetKeepsAccuracyAtUnderAThirdOfTheSize) {
  if (!std::filesystem::exists(kData)) GTEST_SKIP() << "dataset-fashion-mnist not installed";
  Fixture f;
  ASSERT_EQ(std::system((bin() + " train --epochs 1 --no-progress --out " + f.root + "/run > /dev/null 2>&1").c_str()), 0);
  for (const std::string scheme : {"dynamic", "static"}) {
    std::string out = f.root + "/" + scheme + ".safetensors";
    auto r = json_of(bin() + " quantize " + f.root + "/run/checkpoint.dlr --scheme " + scheme + " --out " + out + " --json");
    ASSERT_EQ(r.value("schema", ""), "dlready.quantize/1") << r;
    EXPECT_EQ(r["scheme"], scheme);
    expect_targets(r, 0.5);
    EXPECT_LE(r["int8_bytes"].get<double>(), 0.3 * r["fp32_bytes"].get<double>()) << r;
    EXPECT_EQ(r["int8_bytes"].get<uint64_t>(), std::filesystem::file_size(out));
    // eval of the file written gives the accuracy quantize measured on it.
    auto e = json_of(bin() + " eval " + out + " --json");
    EXPECT_EQ(e["format"], "int8 " + scheme) << e;
    EXPECT_DOUBLE_EQ(e["test_acc"].get<double>(), r["int8_test_acc"].get<double>()) << e;
    // And a PyTorch user reads it: safetensors.torch.load_file, weights dequantized into SimpleNet.
    if (std::filesystem::exists(DLREADY_VENV_PYTHON)) {
      auto py = json_of(std::string(DLREADY_VENV_PYTHON) + " " + DLREADY_PYTORCH_INTEROP + " int8 " + out + " " + kData);
      EXPECT_NEAR(py["test_acc"].get<double>(), r["int8_test_acc"].get<double>(), 0.01) << py;
    }
  }
  auto text = command_output(bin() + " quantize " + f.root + "/run/checkpoint.dlr --out " + f.root + "/q.safetensors");
  EXPECT_NE(text.find("test accuracy"), std::string::npos) << text;
  EXPECT_NE(text.find("latency, batch 1"), std::string::npos) << text;
}

TEST(Quantize, CnnQuantizesWithBothSchemes) {
  if (!std::filesystem::exists(kData)) GTEST_SKIP() << "dataset-fashion-mnist not installed";
  Fixture f;
  ASSERT_EQ(std::system((bin() + " train --model cnn --epochs 1 --limit-train 12800 --no-progress --out " + f.root +
                         "/run > /dev/null 2>&1").c_str()), 0);
  for (const std::string scheme : {"dynamic", "static"}) {
    std::string out = f.root + "/" + scheme + ".safetensors";
    auto r = json_of(bin() + " quantize " + f.root + "/run/checkpoint.dlr --scheme " + scheme + " --calibration 500 --out " +
                     out + " --json");
    EXPECT_EQ(r["kind"], "cnn") << r;
    expect_targets(r, 1.0);
    // static: the convolutions are int8 too; dynamic keeps them float (as quantize_dynamic does).
    EXPECT_LE(r["int8_bytes"].get<double>(), (scheme == "static" ? 0.3 : 0.4) * r["fp32_bytes"].get<double>()) << r;
    EXPECT_EQ(json_of(bin() + " eval " + out + " --json")["test_acc"], r["int8_test_acc"]);
  }
}

// A valid int8 file from random weights, then each damage in turn.
TEST(Quantize, DamagedInt8FilesAreRefusedNamingWhatIsWrong) {
  torch::manual_seed(0);
  ModelWeights w;
  w.kind = ModelKind::mlp;
  w.tensors = make_model(ModelKind::mlp, torch::kCPU).parameters();
  auto calibration = torch::randn({64, 784});
  for (auto scheme : {QuantScheme::dynamic, QuantScheme::static_ranges}) {
    auto good = to_file(quantize_model(w, scheme, calibration));
    ASSERT_TRUE(std::holds_alternative<QuantizedModel>(from_file(good)));
    auto damaged = [&](const std::function<void(SafetensorsFile&)>& damage, const std::string& why) {
      auto f = good;
      for (auto& named : f.tensors) named.second = named.second.clone();  // copies share storage
      damage(f);
      auto bytes = safetensors_bytes(f);
      auto read = read_safetensors(bytes);
      std::string error = std::holds_alternative<std::string>(read) ? std::get<std::string>(read)
                                                                    : std::get<std::string>(from_file(std::get<SafetensorsFile>(read)));
      EXPECT_NE(error.find(why), std::string::npos) << error;
    };
    auto tensor = [](SafetensorsFile& f, const std::string& name) -> torch::Tensor& {
      for (auto& [n, t] : f.tensors)
        if (n == name) return t;
      throw std::runtime_error("no " + name);
    };
    damaged([](SafetensorsFile& f) { f.metadata["model"] = "rnn"; }, "'model' is 'rnn'");
    damaged([](SafetensorsFile& f) { f.metadata["scheme"] = "fp8"; }, "'scheme' is 'fp8'");
    damaged([&](SafetensorsFile& f) { tensor(f, "fc1.weight_scale")[3] = -1.0; }, "outside (0, 1e10]");
    damaged([&](SafetensorsFile& f) { tensor(f, "fc2.bias")[0] = NAN; }, "'fc2.bias' holds inf/NaN");
    damaged([&](SafetensorsFile& f) { tensor(f, "fc1.weight") = tensor(f, "fc1.weight").to(torch::kFloat); },
            "'fc1.weight' is Float, not Char");
    damaged([&](SafetensorsFile& f) { tensor(f, "fc2.weight") = tensor(f, "fc2.weight").narrow(1, 0, 5).contiguous(); },
            "'fc2.weight' has shape [10,5]");
    damaged([](SafetensorsFile& f) { f.tensors.emplace_back("extra", torch::zeros({1})); }, "unexpected tensor 'extra'");
    damaged([](SafetensorsFile& f) { f.tensors.erase(f.tensors.begin()); }, "no tensor");
    if (scheme == QuantScheme::static_ranges)
      damaged([&](SafetensorsFile& f) { tensor(f, "fc1.output_qparams")[1] = 300.0; }, "a zero point in 0..255");
  }
  // Through the command line: the file is named, exit 1; quantize wants the fp32 weights.
  Fixture f;
  auto bytes = safetensors_bytes(to_file(quantize_model(w, QuantScheme::dynamic, calibration)));
  f.write("/q.safetensors", bytes);
  f.write("/cut.safetensors", bytes.substr(0, bytes.size() - 100));
  auto out = command_output(bin() + " eval " + f.root + "/cut.safetensors 2>&1; echo rc=$?");
  EXPECT_NE(out.find("dlready eval: " + f.root + "/cut.safetensors: tensor '"), std::string::npos) << out;
  EXPECT_NE(out.find("rc=1"), std::string::npos) << out;
  out = command_output(bin() + " quantize " + f.root + "/q.safetensors --out " + f.root + "/qq.safetensors 2>&1; echo rc=$?");
  EXPECT_NE(out.find("an int8 model written by dlready quantize"), std::string::npos) << out;
  EXPECT_NE(out.find("rc=1"), std::string::npos) << out;
  out = command_output(bin() + " quantize " + f.root + "/q.safetensors --scheme fp4 --out x 2>&1; echo rc=$?");
  EXPECT_NE(out.find("rc=2"), std::string::npos) << out;
}

// Random damage anywhere in an int8 file never crashes the reader.
TEST(Quantize, FlippedBytesNeverCrashTheReader) {
  torch::manual_seed(1);
  ModelWeights w;
  w.tensors = make_model(ModelKind::mlp, torch::kCPU).parameters();
  auto bytes = safetensors_bytes(to_file(quantize_model(w, QuantScheme::static_ranges, torch::randn({8, 784}))));
  std::mt19937 rng(7);
  for (int i = 0; i < 300; ++i) {
    auto b = bytes;
    size_t at = rng() % std::min<size_t>(b.size(), i % 2 ? b.size() : 1200);  // half in the header
    b[at] = static_cast<char>(rng());
    EXPECT_NO_THROW({
      auto read = read_safetensors(b);
      if (auto* file = std::get_if<SafetensorsFile>(&read)) (void)from_file(*file);
    }) << "byte " << at;
  }
}

}  // namespace
}  // namespace dlready::test
