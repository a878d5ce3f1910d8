// The training outputs that need no LibTorch (formats/): curves.svg with round ticks, gridlines,
// percent accuracy, a legend outside the plot and the run's settings; the console's progress line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <variant>

#include "formats/checkpoint_format.hpp"
#include "formats/curves_svg.hpp"
#include "formats/metrics.hpp"
#include "formats/pickle_state_dict.hpp"
#include "formats/safetensors.hpp"

namespace dlready::test {
namespace {

TEST(Curves, NiceTicksAreRoundAndCoverTheRange) {
  EXPECT_EQ(nice_ticks(0.31, 1.4, 5), (std::vector<double>{0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4}));
  auto pct = nice_ticks(83.87, 85.99, 5);
  ASSERT_GE(pct.size(), 4u);
  EXPECT_DOUBLE_EQ(pct.front(), 83.5);
  EXPECT_DOUBLE_EQ(pct.back(), 86.0);
  EXPECT_EQ(nice_ticks(0, 1, 5).size(), 6u) << "0, 0.2, ... 1: a one-epoch axis has ticks";
  EXPECT_GE(nice_ticks(0.5, 0.5, 5).size(), 2u) << "one value still gets an axis";
  EXPECT_GE(nice_ticks(NAN, INFINITY, 5).size(), 2u);
}

std::vector<EpochMetrics> one_epoch() {
  EpochMetrics m;
  m.epoch = 1, m.train_loss = 0.4476, m.train_acc = 0.8387, m.test_loss = 0.3898, m.test_acc = 0.8599, m.steps = 938;
  for (int64_t s = 10; s <= 938; s += 10) m.loss_curve.push_back({s, 2.3 / (1 + static_cast<double>(s) / 50)});
  return {m};
}

TEST(Curves, OneEpochHasALossCurveTicksPercentAndTheRun) {
  auto svg = render_curves_svg(one_epoch(), "model mlp \u00b7 sgd lr 0.01 \u00b7 batch <64> & more");
  EXPECT_NE(svg.find("batch &lt;64&gt; &amp; more"), std::string::npos) << "the run line, escaped";
  EXPECT_NE(svg.find("after epoch 1: test accuracy 85.99%"), std::string::npos);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(svg, m, std::regex("<polyline[^>]*points=\"([^\"]*)\""))) << svg;
  const std::string coords = m[1].str();
  auto points = std::count(coords.begin(), coords.end(), ',');
  EXPECT_EQ(points, 93) << "the loss every 10 steps";
  EXPECT_NE(svg.find(">86.0%<"), std::string::npos) << "accuracy in percent, as the console prints it";
  EXPECT_NE(svg.find(">85.99%<"), std::string::npos) << "the last test accuracy beside its point";
  EXPECT_NE(svg.find(">0.2<"), std::string::npos) << "x ticks inside a one-epoch run";
  EXPECT_NE(svg.find("train, every 10 steps"), std::string::npos);
  EXPECT_NE(svg.find("stroke=\"#e0e0e0\""), std::string::npos) << "gridlines";
  // Every curve point lies inside the plot (y 104..334); the legend sits above it (y 88).
  const std::regex y_of_point(",([0-9.]+)");
  for (auto it = std::sregex_iterator(coords.begin(), coords.end(), y_of_point); it != std::sregex_iterator(); ++it) {
    double y = std::stod((*it)[1]);
    EXPECT_GE(y, 104 - 1e-6);
    EXPECT_LE(y, 334 + 1e-6);
  }
}

// Issue 35, item 12: accuracy exists from epoch 1, so its axis starts there (whole epochs), and two
// close end values are written one above and one below their points, never over each other.
TEST(Curves, TwoEpochsAccuracyFromEpochOneAndLabelsApart) {
  auto h = one_epoch();
  auto second = h[0];
  second.epoch = 2, second.train_acc = 0.8810, second.test_acc = 0.8790;
  h.push_back(second);
  auto svg = render_curves_svg(h, "run");
  const std::string accuracy = svg.substr(svg.find(">accuracy<"));
  EXPECT_EQ(accuracy.find("text-anchor=\"middle\">0</text>"), std::string::npos) << "no epoch 0 on the accuracy axis";
  EXPECT_NE(accuracy.find("text-anchor=\"middle\">1</text>"), std::string::npos) << accuracy;
  EXPECT_NE(accuracy.find("text-anchor=\"middle\">2</text>"), std::string::npos) << accuracy;
  std::smatch train, test;
  ASSERT_TRUE(std::regex_search(accuracy, train, std::regex("y=\"([0-9.]+)\" text-anchor=\"end\" fill=\"#1f77b4\">88.10%")));
  ASSERT_TRUE(std::regex_search(accuracy, test, std::regex("y=\"([0-9.]+)\" text-anchor=\"end\" fill=\"#d62728\">87.90%")));
  EXPECT_GE(std::stod(test[1]) - std::stod(train[1]), 12) << "the lower value's label sits under the higher one's";
}

TEST(Curves, NoEpochAndNonFiniteValuesStillDraw) {
  auto svg = render_curves_svg({}, "run");
  EXPECT_NE(svg.find("no epoch finished yet"), std::string::npos);
  auto h = one_epoch();
  h[0].test_loss = NAN;
  h[0].loss_curve[3].loss = INFINITY;
  svg = render_curves_svg(h, "run");
  EXPECT_EQ(svg.find("nan"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("inf"), std::string::npos) << svg;
}

TEST(Progress, TheLineFitsTheTerminal) {
  for (int columns : {10, 20, 30, 40, 60, 80, 200}) {
    auto line = progress_line(2, 5, 31000, 60000, 31234.5, columns);
    EXPECT_LE(line.size(), static_cast<size_t>(std::max(columns - 1, 8))) << columns << ": " << line;
    EXPECT_EQ(line.rfind("epoch 2/5", 0), 0u) << line;
  }
  auto wide = progress_line(2, 5, 31000, 60000, 31234.5, 200);
  EXPECT_NE(wide.find("31000/60000"), std::string::npos) << wide;
  EXPECT_NE(wide.find("31.2k samples/s"), std::string::npos) << wide;
  EXPECT_NE(wide.find("[############"), std::string::npos) << wide;
  auto narrow = progress_line(2, 5, 31000, 60000, 31234.5, 60);
  EXPECT_NE(narrow.find("samples/s"), std::string::npos) << "the speed stays at 60 columns: " << narrow;
  EXPECT_NE(narrow.find('['), std::string::npos) << narrow;
}

}  // namespace
}  // namespace dlready::test

namespace dlready::test {
namespace {

// The state_dict writer and reader of formats/ meet without LibTorch: what is written is read back
// with the same names, shapes, contiguous strides and bytes (torch.load reads the same file:
// tests/train/model_files_test.cpp).
TEST(StateDictFile, WrittenAndReadBackWithoutLibTorch) {
  std::string w(6 * 4, '\0'), b(2 * 4, '\0');
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<char>(i);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<char>(100 + i);
  auto file = write_state_dict({{"fc.weight", {2, 3}, w}, {"fc.bias", {2}, b}});
  auto records = read_state_dict_records(file);
  ASSERT_TRUE(std::holds_alternative<std::vector<StateDictTensor>>(records)) << std::get<std::string>(records);
  const auto& r = std::get<std::vector<StateDictTensor>>(records);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].name, "fc.weight");
  EXPECT_EQ(r[0].size, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(r[0].stride, (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(file.substr(r[0].data_offset, r[0].data_bytes), w);
  EXPECT_EQ(r[1].name, "fc.bias");
  EXPECT_EQ(file.substr(r[1].data_offset, r[1].data_bytes), b);
}

// safetensors the same way: what is serialized is parsed back, metadata included.
TEST(SafetensorsFile, WrittenAndReadBackWithoutLibTorch) {
  SafetensorsContent c;
  c.metadata["format"] = "pt";
  c.tensors.push_back({"w", "F32", {2, 2}, std::string(16, '\x01')});
  c.tensors.push_back({"q", "I8", {3}, "abc"});
  auto parsed = parse_safetensors(serialize_safetensors(c));
  ASSERT_TRUE(std::holds_alternative<SafetensorsContent>(parsed)) << std::get<std::string>(parsed);
  const auto& back = std::get<SafetensorsContent>(parsed);
  EXPECT_EQ(back.metadata, c.metadata);
  ASSERT_EQ(back.tensors.size(), 2u);  // by name: q, w
  EXPECT_EQ(back.tensors[0].name, "q");
  EXPECT_EQ(back.tensors[0].shape, c.tensors[1].shape);
  EXPECT_EQ(back.tensors[1].bytes, c.tensors[0].bytes);
  auto bad = c;
  bad.tensors[1].dtype = "BF16";
  auto refused = parse_safetensors(serialize_safetensors(bad));
  ASSERT_TRUE(std::holds_alternative<std::string>(refused));
  EXPECT_NE(std::get<std::string>(refused).find("tensor 'q': dtype BF16 is not one of"), std::string::npos);
}

// The run's checkpoint framing: read back as written; one changed byte is refused by the checksum,
// a NaN by name — all without LibTorch.
TEST(CheckpointFile, WrittenAndReadBackWithoutLibTorchAndTamperingRefused) {
  auto floats = [](std::vector<float> v) { return std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4); };
  std::vector<RawTensor> tensors = {{"fc1.weight", "F32", {2, 2}, floats({1, 2, 3, 4})},
                                    {"fc1.bias", "F32", {2}, floats({0.5f, -0.5f})}};
  nlohmann::json meta = {{"epoch", 2}, {"step", 1876}};
  std::string file = serialize_checkpoint(meta, tensors);
  auto back = parse_checkpoint_bytes(file, "ck.dlr");
  ASSERT_EQ(back.error, "");
  EXPECT_EQ(back.meta, meta);
  ASSERT_EQ(back.tensors.size(), 2u);  // in the file's order
  EXPECT_EQ(back.tensors[0].name, "fc1.weight");
  EXPECT_EQ(back.tensors[0].shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(back.tensors[1].bytes, tensors[1].bytes);
  std::string torn = file;
  torn[20] ^= 1;
  EXPECT_EQ(parse_checkpoint_bytes(torn, "ck.dlr").error,
            "ck.dlr: checksum mismatch: the file is torn or was altered; refusing it");
  tensors[1].bytes = floats({std::nanf(""), 1});
  EXPECT_EQ(parse_checkpoint_bytes(serialize_checkpoint(meta, tensors), "ck.dlr").error,
            "ck.dlr: tensor fc1.bias holds NaN or infinite values");
  EXPECT_NE(parse_checkpoint_bytes(file.substr(0, 30), "ck.dlr").error.find("truncated (30 bytes)"), std::string::npos);
}

}  // namespace
}  // namespace dlready::test
