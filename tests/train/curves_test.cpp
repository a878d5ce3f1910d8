// The training curve's loss every few steps (so a one-epoch run has a curve), kept across a resume.
// curves.svg itself, which needs no LibTorch: tests/training_outputs_test.cpp.
#include <gtest/gtest.h>

#include "formats/metrics.hpp"
#include "train/loss_curve.hpp"

namespace dlready::test {
namespace {

TEST(Curves, WindowMeansAreTheMeanLossOfTheirSteps) {
  // 250 steps of 4 samples, the last one short (998 samples): windows of 3 steps.
  LossCurve curve(250, 4, 998, torch::kCPU);
  ASSERT_EQ(curve.every(), 3);
  auto loss_sum = torch::zeros({});
  curve.begin(0, loss_sum, {});
  for (int64_t step = 0; step < 250; ++step) {
    int64_t bs = step == 249 ? 2 : 4;
    loss_sum.add_(static_cast<double>(step) * bs);  // the loss of step i is i
    curve.after_step(step, loss_sum);
  }
  auto points = curve.points();
  ASSERT_EQ(points.size(), 84u) << "83 windows of 3 steps and the last, short one";
  EXPECT_EQ(points[0].end_step, 3);
  EXPECT_NEAR(points[0].loss, 1.0, 1e-6);  // steps 0, 1, 2
  EXPECT_EQ(points.back().end_step, 250);
  EXPECT_NEAR(points.back().loss, 249.0, 1e-3) << "step 249 alone";
}

TEST(Curves, AResumedEpochKeepsTheWindowsBeforeTheCheckpoint) {
  LossCurve curve(250, 4, 1000, torch::kCPU);
  auto loss_sum = torch::full({}, 123.0);  // the leader's restored counter
  curve.begin(7, loss_sum, {{3, 1.0}, {6, 4.0}});
  for (int64_t step = 7; step < 12; ++step) {
    loss_sum.add_(static_cast<double>(step) * 4);
    curve.after_step(step, loss_sum);
  }
  auto points = curve.points();
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[1].end_step, 6);
  EXPECT_EQ(points[2].end_step, 9) << "the window cut by the stop ends where it would have";
  EXPECT_NEAR(points[2].loss, 7.5, 1e-4) << "the steps trained after the resume: 7 and 8";
  EXPECT_NEAR(points[3].loss, 10.0, 1e-4);
}

}  // namespace
}  // namespace dlready::test
