// Training on a CUDA device (label "gpu"): skipped cleanly on machines without one.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "os/posix_fs.hpp"
#include "synthetic.hpp"
#include "train/trainer.hpp"

namespace dlready::test {
namespace {

bool have_cuda() { return torch::cuda::is_available() && torch::cuda::device_count() > 0; }

TEST(Gpu, TrainsOnCudaAndMatchesCpuWithinTolerance) {
  if (!have_cuda()) GTEST_SKIP() << "no usable CUDA device";
  auto ds = synthetic_dataset(640, 200);
  auto run = [&](torch::Device d, const std::string& out) {
    TrainOptions o;
    o.out = out;
    o.epochs = 2;
    o.progress = false;
    return train(o, to_tensors(ds, 0, d), d, {});
  };
  auto dir = std::filesystem::temp_directory_path() / "dlready-gpu-test";
  auto cpu = run(torch::kCPU, (dir / "cpu").string());
  auto gpu = run(torch::Device(torch::kCUDA, 0), (dir / "gpu").string());
  ASSERT_EQ(gpu.status, ExitCode::ok) << gpu.error;
  EXPECT_NEAR(gpu.history.back().train_loss, cpu.history.back().train_loss, 1e-3);
  EXPECT_GT(gpu.test_acc, 0.9);
  remove_tree(dir.string());
}

TEST(Gpu, RealFashionMnistOnCuda) {
  if (!have_cuda()) GTEST_SKIP() << "no usable CUDA device";
  // DLREADY_DATA: where Debian's package is absent (the GPU check passes its bundle's copy).
  const char* dir = std::getenv("DLREADY_DATA");
  auto ds = load_mnist(dir ? dir : "/usr/share/datasets/fashion-mnist");
  if (!ds.dataset) GTEST_SKIP() << ds.error;
  TrainOptions o;
  o.out = (std::filesystem::temp_directory_path() / "dlready-gpu-fmnist").string();
  o.epochs = 1;
  o.progress = false;
  torch::Device d(torch::kCUDA, 0);
  auto r = train(o, to_tensors(*ds.dataset, 0, d), d, {});
  ASSERT_EQ(r.status, ExitCode::ok) << r.error;
  EXPECT_GE(r.test_acc, 0.84);
}

}  // namespace
}  // namespace dlready::test

namespace dlready::test {
namespace {

TrainResult gpu_run(const std::string& name, const std::function<void(TrainOptions&)>& set) {
  auto ds = synthetic_dataset(1280, 200);
  TrainOptions o;
  o.out = (std::filesystem::temp_directory_path() / ("dlready-gpu-" + name)).string();
  o.epochs = 2;
  o.progress = false;
  set(o);
  torch::Device d(torch::kCUDA, 0);
  return train(o, to_tensors(ds, 0, d), d, {});
}

TEST(GpuAmp, CudaGraphsMatchEagerTraining) {
  if (!have_cuda()) GTEST_SKIP() << "no usable CUDA device";
  auto eager = gpu_run("eager", [](TrainOptions&) {});
  auto graphs = gpu_run("graphs", [](TrainOptions& o) { o.cuda_graphs = true; });
  ASSERT_EQ(graphs.status, ExitCode::ok) << graphs.error;
  EXPECT_NEAR(graphs.history.back().train_loss, eager.history.back().train_loss, 1e-4);
  EXPECT_NEAR(graphs.test_acc, eager.test_acc, 0.01);
  EXPECT_GT(graphs.history.back().device_peak_mib, 0) << "device memory is reported";
  // The step (gather, forward, backward, Adam, metric sums) is dozens of kernels; -1 only on a
  // LibTorch older than 2.8 (no keep_graph).
  EXPECT_TRUE(graphs.graph_kernels > 20 || graphs.graph_kernels == -1) << graphs.graph_kernels;
  EXPECT_EQ(eager.graph_kernels, 0);
}

TEST(GpuAmp, Fp16WithLossScalingAndBf16Train) {
  if (!have_cuda()) GTEST_SKIP() << "no usable CUDA device";
  auto fp32 = gpu_run("fp32", [](TrainOptions& o) { o.engine = Engine::autograd; });
  auto fp16 = gpu_run("fp16", [](TrainOptions& o) { o.amp = AmpMode::fp16; });
  auto bf16 = gpu_run("bf16", [](TrainOptions& o) { o.amp = AmpMode::bf16; });
  ASSERT_EQ(fp16.status, ExitCode::ok) << fp16.error;
  ASSERT_EQ(bf16.status, ExitCode::ok) << bf16.error;
  EXPECT_GT(fp16.loss_scale, 0);
  EXPECT_NEAR(fp16.test_acc, fp32.test_acc, 0.02);
  EXPECT_NEAR(bf16.test_acc, fp32.test_acc, 0.02);
}

}  // namespace
}  // namespace dlready::test
