// Options of `dlready verify` and `dlready bench`. Plain data shared by the CLI (no LibTorch) and
// the LibTorch module that runs them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace dlready {

struct VerifyOptions {
  std::string device = "all";   // all | cpu | cuda | cuda:N
  std::string level = "quick";  // quick | full
  bool json = false;
};

struct BenchOptions {
  std::vector<std::string> what;  // gemm | copy | train | floor | all (empty = all)
  std::string device = "auto";    // auto (CUDA when usable, else CPU) | cpu | cuda | cuda:N
  std::vector<int> sizes;         // GEMM sizes (empty = the device's default list)
  int samples = 0;                // timed samples per measurement (0 = the recipe's default)
  std::string data = "/usr/share/datasets/fashion-mnist";  // for the training benchmark
  int64_t kernels = 0;  // launch-bound floor: kernels per step (0 = those of the captured training step)
  int64_t steps = 0;    // launch-bound floor: steps per epoch (0 = the training benchmark's)
  bool json = false;
};

// Exit statuses.
inline constexpr int kVerifyReady = 0;
inline constexpr int kVerifyNotReady = 1;
inline constexpr int kBenchOk = 0;
inline constexpr int kBenchFailed = 1;  // a measurement's result was wrong, or nothing could run

}  // namespace dlready

// Entry points the LibTorch module exports (looked up with dlsym by the CLI).
extern "C" int dlready_verify_main(const dlready::VerifyOptions* options);
extern "C" int dlready_bench_main(const dlready::BenchOptions* options);
