// GEMM throughput per dtype and size on one device, against the device's peak; every result is
// checked against a float64 reference before its time is believed.
#pragma once
#include <torch/torch.h>

#include <optional>
#include <string>
#include <vector>

#include "torch_runtime/measure.hpp"

namespace dlready {

struct GemmRow {
  std::string dtype;  // fp32 | tf32 | fp16 | bf16
  int n = 0;          // n x n times n x n
  double tflops = 0;  // from the median time
  Timing timing;
  double rel_error = 0, tolerance = 0;
  bool verified = false;  // rel_error <= tolerance
  std::optional<double> percent_of_peak;
};

// No GEMM runs above the hardware's peak: a row that measured more was timed while the peak's
// measurement lost the processors to other work (or the other way round).
bool above_peak(const GemmRow& r);

struct GemmReport {
  std::string device, device_name;
  std::vector<GemmRow> rows;
  std::vector<std::pair<std::string, double>> peaks;  // dtype -> TFLOP/s
  std::string peak_source;
  std::vector<std::string> warnings;  // "Tensor Cores not used", ...
  bool ok = true;                     // every row verified
};

std::vector<int> default_gemm_sizes(const torch::Device& d);
// One dtype at one size: timed by `recipe`, checked against float64.
GemmRow measure_gemm(const torch::Device& d, const std::string& dtype, int n, const Recipe& recipe);
// The fastest verified row of `dtype` that is not above its peak; nullopt when none.
std::optional<double> best_verified_tflops(const std::vector<GemmRow>& rows, const std::string& dtype);
std::vector<std::string> gemm_dtypes(const torch::Device& d);
double gemm_tolerance(const std::string& dtype);

// cpu_peak_tflops: the measured fp32 peak when d is the CPU.
GemmReport bench_gemm(const torch::Device& d, const std::vector<int>& sizes, const Recipe& recipe,
                      std::optional<double> cpu_peak_tflops, const std::string& cpu_peak_source);

// The fast-types rule: on CUDA, fp16/bf16 (Tensor Cores) should beat fp32 clearly at the largest
// size; a warning per dtype that does not (1.5x margin).
std::vector<std::string> tensor_core_warnings(const std::vector<GemmRow>& rows);

// Rates the rows of `dtype` against `peak` TFLOP/s (a CPU peak measured again after the GEMMs may be
// the higher, better figure); the rows are `rep.rows`, the peak is recorded in `rep.peaks`.
void rate_against_peak(GemmReport& rep, const std::string& dtype, double peak);

// One warning naming the worst row above the peak; the %peak column is not to be trusted then.
std::vector<std::string> over_peak_warnings(const std::vector<GemmRow>& rows);

}  // namespace dlready
