// Mixed precision, loss scaling, out-of-memory recovery and memory metrics on the CPU (label
// "torch"). The OOM is simulated through TrainHooks::before_step, the step-boundary seam.
#include <gtest/gtest.h>

#include <filesystem>

#include "fixture.hpp"
#include "synthetic.hpp"
#include "train/amp.hpp"
#include "checkpoint_params.hpp"
#include "train/trainer.hpp"

namespace dlready::test {
namespace {

TEST(Amp, AutocastScopeOnTheCpuIsBf16AndRestored) {
  auto a = torch::randn({8, 8});
  {
    AutocastGuard g(torch::kCPU, AmpMode::bf16);
    EXPECT_EQ(a.mm(a).scalar_type(), torch::kBFloat16);
    {
      AutocastGuard off(torch::kCPU, AmpMode::off);
      EXPECT_EQ(a.mm(a).scalar_type(), torch::kBFloat16) << "off leaves the outer scope alone";
    }
  }
  EXPECT_EQ(a.mm(a).scalar_type(), torch::kFloat) << "autocast ends with the scope";
  EXPECT_EQ(parse_amp("fp16"), AmpMode::fp16);
  EXPECT_FALSE(parse_amp("fp8").has_value());
}

TEST(Amp, LossScalerSkipsAndShrinksOnInfGrowsAfterGoodSteps) {
  LossScaler::Options o;
  o.init_scale = 1024, o.growth_interval = 3;
  LossScaler s(torch::kCPU, o);
  EXPECT_EQ(s.scale(torch::ones({})).item<double>(), 1024);
  // Finite gradients are unscaled in place.
  std::vector<torch::Tensor> g{torch::full({3}, 2048.0), torch::full({2}, -512.0)};
  EXPECT_TRUE(s.unscale_and_update(g));
  EXPECT_TRUE(torch::equal(g[0], torch::full({3}, 2.0)));
  EXPECT_TRUE(torch::equal(g[1], torch::full({2}, -0.5)));
  // An inf anywhere: skip, halve the scale, reset the growth count.
  std::vector<torch::Tensor> bad{torch::ones({3}), torch::tensor({1.0f, std::numeric_limits<float>::infinity()})};
  EXPECT_FALSE(s.unscale_and_update(bad));
  EXPECT_EQ(s.current_scale(), 512);
  std::vector<torch::Tensor> nan{torch::tensor({std::numeric_limits<float>::quiet_NaN()})};
  EXPECT_FALSE(s.unscale_and_update(nan));
  EXPECT_EQ(s.current_scale(), 256);
  EXPECT_EQ(s.skipped_steps(), 2);
  // growth_interval good steps in a row: the scale doubles.
  for (int i = 0; i < 2; ++i) {
    std::vector<torch::Tensor> ok{torch::ones({2})};
    EXPECT_TRUE(s.unscale_and_update(ok));
    EXPECT_EQ(s.current_scale(), 256) << "not yet";
  }
  std::vector<torch::Tensor> ok{torch::ones({2})};
  EXPECT_TRUE(s.unscale_and_update(ok));
  EXPECT_EQ(s.current_scale(), 512);
  // The state survives a checkpoint round trip.
  LossScaler t(torch::kCPU, o);
  t.load_state(s.state());
  EXPECT_EQ(t.current_scale(), 512);
}

// fp16's overflow skip decided on the device (what a CUDA graph needs: no .item() in the step):
// the optimizer leaves parameters, moments and step counts as they were when found_inf is 1, and
// takes exactly the plain step when it is 0; the scaler's state, skipped steps included, survives a
// checkpoint round trip (a resumed run goes on with the scale it had reached).
TEST(Amp, AnOverflowedStepIsSkippedOnTheDeviceByBothOptimizers) {
  for (auto kind : {OptimizerKind::adam, OptimizerKind::sgd}) {
    torch::manual_seed(7);
    NamedTensors p1{{"w", torch::randn({4, 3})}, {"b", torch::randn({3})}};
    NamedTensors p2{{"w", p1[0].second.clone()}, {"b", p1[1].second.clone()}};
    Optimizer plain(kind, 0.01, 0.9, p1), masked(kind, 0.01, 0.9, p2);
    LossScaler::Options o;
    o.init_scale = 1024;
    LossScaler scaler(torch::kCPU, o);
    for (int step = 0; step < 4; ++step) {
      std::vector<torch::Tensor> g{torch::randn({4, 3}), torch::randn({3})};
      const double scale = scaler.current_scale();
      std::vector<torch::Tensor> scaled{g[0] * scale, g[1] * scale};
      if (step == 2) scaled[1][0] = std::numeric_limits<float>::infinity();  // this step overflows
      auto before = p2[0].second.clone();
      auto state_before = masked.state();
      const torch::Tensor& found_inf = scaler.unscale_and_update_on_device(scaled);
      masked.step(scaled, &found_inf);
      if (step == 2) {
        EXPECT_TRUE(torch::equal(p2[0].second, before)) << "skipped: the parameters stay";
        auto state_after = masked.state();
        for (size_t i = 0; i < state_after.size(); ++i)
          EXPECT_TRUE(torch::equal(state_after[i].second, state_before[i].second)) << state_after[i].first;
        EXPECT_EQ(scaler.current_scale(), 512);
      } else {
        plain.step(g);
        EXPECT_TRUE(torch::allclose(p1[0].second, p2[0].second, 1e-6, 1e-7)) << "step " << step;
        EXPECT_TRUE(torch::allclose(p1[1].second, p2[1].second, 1e-6, 1e-7)) << "step " << step;
      }
    }
    EXPECT_EQ(scaler.skipped_steps(), 1);
    LossScaler resumed(torch::kCPU, LossScaler::Options{});
    resumed.load_state(scaler.state());
    EXPECT_EQ(resumed.current_scale(), 512);
    EXPECT_EQ(resumed.skipped_steps(), 1) << "the count of skipped steps goes on across a resume";
  }
}

TEST(Amp, Bf16TrainingReachesFp32AccuracyWithinOnePoint) {
  const std::string dir = "/usr/share/datasets/fashion-mnist";
  auto ds = load_mnist(dir);
  if (!ds.dataset) GTEST_SKIP() << ds.error;
  Fixture f;
  auto run = [&](AmpMode amp) {
    TrainOptions o;
    o.out = f.root + "/" + to_string(amp);
    o.epochs = 2;
    o.limit_train = 12000;
    o.progress = false;
    o.engine = Engine::autograd;
    o.amp = amp;
    auto r = train(o, to_tensors(*ds.dataset, o.limit_train, torch::kCPU), torch::kCPU, {});
    EXPECT_EQ(r.status, ExitCode::ok) << r.error;
    return r.test_acc;
  };
  double fp32 = run(AmpMode::off), bf16 = run(AmpMode::bf16);
  EXPECT_GT(fp32, 0.80);
  EXPECT_NEAR(bf16, fp32, 0.01) << "bf16 " << bf16 << " vs fp32 " << fp32 << " (stated margin: 1 point)";
}

// fp16 on the CPU does nothing there: a note and an fp32 run (issue 35, item 9: one policy for an
// option that does nothing on the device); fused with AMP contradicts itself and is refused.
TEST(Amp, Fp16OnTheCpuRunsInFp32AndFusedWithAmpIsRefused) {
  auto ds = synthetic_dataset(128, 32);
  Fixture f;
  TrainOptions o;
  o.out = f.root + "/r";
  o.amp = AmpMode::fp16;
  std::string notes;
  TrainHooks hooks;
  hooks.log = [&](const std::string& s) { notes += s + "\n"; };
  auto r = train(o, to_tensors(ds, 0, torch::kCPU), torch::kCPU, hooks);
  EXPECT_EQ(r.status, ExitCode::ok) << r.error;
  EXPECT_EQ(r.amp, AmpMode::off);
  EXPECT_NE(notes.find("--amp bf16"), std::string::npos) << notes;
  o.out = f.root + "/r2";
  o.amp = AmpMode::bf16, o.engine = Engine::fused;
  r = train(o, to_tensors(ds, 0, torch::kCPU), torch::kCPU, {});
  EXPECT_EQ(r.status, ExitCode::usage);
}

class OomRecovery : public ::testing::TestWithParam<std::string> {};

TEST_P(OomRecovery, MicroBatchesGiveTheFullBatchResult) {
  auto ds = synthetic_dataset(640, 100);
  Fixture f;
  TrainOptions o;
  o.epochs = 2;
  o.progress = false;
  o.engine = *parse_engine(GetParam());
  o.out = f.root + "/normal";
  auto data = to_tensors(ds, 0, torch::kCPU);
  auto normal = train(o, data, torch::kCPU, {});
  ASSERT_EQ(normal.status, ExitCode::ok) << normal.error;

  // Device memory "holds" 16 samples: anything larger fails at the step boundary.
  std::vector<std::string> lines;
  TrainHooks h;
  h.log = [&](const std::string& s) { lines.push_back(s); };
  h.before_step = [](int64_t, int64_t batch) {
    TORCH_CHECK_WITH(OutOfMemoryError, batch <= 16, "CUDA out of memory (simulated): batch ", batch);
  };
  o.out = f.root + "/oom";
  auto oom = train(o, data, torch::kCPU, h);
  ASSERT_EQ(oom.status, ExitCode::ok) << oom.error;
  EXPECT_EQ(oom.micro_batches, 4);
  int told = 0;
  for (const auto& l : lines)
    if (l.find("out of memory") != std::string::npos) {
      ++told;
      EXPECT_NE(l.find("--batch-size 16 fits"), std::string::npos) << l;
    }
  EXPECT_EQ(told, 1) << "told once, when the split that fits is known";
  auto a = model_params(f.root + "/normal"), b = model_params(f.root + "/oom");
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_LT((a[i].second - b[i].second).abs().max().item<double>(), 1e-5) << a[i].first;
  EXPECT_NEAR(oom.history.back().train_loss, normal.history.back().train_loss, 1e-5);
  EXPECT_EQ(oom.test_acc, normal.test_acc);
}

INSTANTIATE_TEST_SUITE_P(Engines, OomRecovery, ::testing::Values("fused", "autograd"));

TEST(OomRecovery, NotEvenOneSampleFitsIsAnError) {
  auto ds = synthetic_dataset(64, 16);
  Fixture f;
  TrainOptions o;
  o.out = f.root + "/r";
  o.progress = false;
  TrainHooks h;
  h.before_step = [](int64_t, int64_t) { TORCH_CHECK_WITH(OutOfMemoryError, false, "CUDA out of memory (simulated)"); };
  EXPECT_THROW(train(o, to_tensors(ds, 0, torch::kCPU), torch::kCPU, h), c10::OutOfMemoryError);
}

TEST(Metrics, MemoryAndScaleFieldsRoundTrip) {
  EpochMetrics m;
  m.epoch = 2, m.rss_mib = 500, m.device_allocated_mib = 12, m.device_reserved_mib = 40, m.device_peak_mib = 33;
  m.loss_scale = 32768, m.skipped_steps = 3;
  auto back = epoch_metrics_from_json(to_json(m));
  EXPECT_EQ(back.device_allocated_mib, 12);
  EXPECT_EQ(back.device_reserved_mib, 40);
  EXPECT_EQ(back.device_peak_mib, 33);
  EXPECT_EQ(back.loss_scale, 32768);
  EXPECT_EQ(back.skipped_steps, 3);
}

}  // namespace
}  // namespace dlready::test
