// One `dlready bench` run being written: the human table (stdout, or stderr under --json), the
// JSON document, the warnings, and whether everything asked for was measured and verified.
#pragma once
#include <torch/torch.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench/train_bench.hpp"
#include "module_api/options.hpp"
#include "torch_runtime/measure.hpp"

namespace dlready {

struct BenchRun {
  const BenchOptions& options;
  torch::Device device;
  Recipe recipe;
  std::FILE* human;
  nlohmann::json json;
  bool ok = true;      // exit 0: everything asked for was measured and verified
  bool wrong = false;  // a measurement's result failed its check
  std::vector<std::string> warnings;
  std::optional<double> gemm_fp32_tflops;  // the best fp32 GEMM of the gemm section, when it ran

  bool named(const std::string& what) const;  // asked for by name
  bool wants(const std::string& what) const;  // by name, by "all", or by default
};

nlohmann::json timing_json(const Timing& t);

void bench_gemm_section(BenchRun& run);
void bench_copy_section(BenchRun& run);
// The training step; also run (unasked) when the floor needs its kernel count.
std::optional<TrainBench> bench_train_section(BenchRun& run, bool floor_wanted);
void bench_floor_section(BenchRun& run, const std::optional<TrainBench>& trained);

}  // namespace dlready
