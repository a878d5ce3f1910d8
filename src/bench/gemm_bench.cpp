#include "bench/gemm_bench.hpp"

#include <cstdio>

#include "compat/gpu_peaks.hpp"
#include "torch_runtime/cuda_support.hpp"
#include "torch_runtime/numeric.hpp"

namespace dlready {

std::vector<int> default_gemm_sizes(const torch::Device& d) {
  if (d.is_cuda()) return {1024, 2048, 4096, 8192};
  return {256, 512, 1024, 2048};
}

std::vector<std::string> gemm_dtypes(const torch::Device& d) {
  // fp16 matmul on a CPU has no fast kernel in LibTorch (~1 GFLOP/s here): not worth the wait.
  if (d.is_cuda()) return {"fp32", "tf32", "fp16", "bf16"};
  return {"fp32", "bf16"};
}

double gemm_tolerance(const std::string& dtype) {
  // Error of the result relative to its largest element, for randn inputs and K <= 16384:
  // fp32 accumulates with ~1e-6 error; tf32 rounds inputs to 10 mantissa bits; fp16/bf16 round
  // the output to 11 / 8 bits.
  if (dtype == "fp32") return 1e-4;
  if (dtype == "tf32") return 5e-3;
  if (dtype == "fp16") return 5e-3;
  return 2e-2;  // bf16
}

namespace {

torch::Dtype scalar_type(const std::string& dtype) {
  if (dtype == "fp16") return torch::kHalf;
  if (dtype == "bf16") return torch::kBFloat16;
  return torch::kFloat;
}

}  // namespace

GemmRow measure_gemm(const torch::Device& d, const std::string& dtype, int n, const Recipe& recipe) {
  GemmRow row{dtype, n};
  set_tf32(dtype == "tf32");
  auto gen = at::make_generator<at::CPUGeneratorImpl>(static_cast<uint64_t>(n));
  auto a = at::randn({n, n}, gen, torch::kFloat).to(d, scalar_type(dtype));
  auto b = at::randn({n, n}, gen, torch::kFloat).to(d, scalar_type(dtype));
  auto c = torch::empty({n, n}, a.options());
  row.timing = measure([&] { at::mm_out(c, a, b); }, [&] { synchronize(d); }, recipe);
  row.tflops = 2.0 * n * n * static_cast<double>(n) / row.timing.median_s / 1e12;
  // Verify the last result on a slice of rows against float64 on the CPU, from the same inputs.
  int64_t rows = std::min<int64_t>(n, 64);
  auto ref = a.slice(0, 0, rows).to(torch::kCPU, torch::kDouble).mm(b.to(torch::kCPU, torch::kDouble));
  row.rel_error = max_relative_error(c.slice(0, 0, rows), ref);
  row.tolerance = gemm_tolerance(dtype);
  row.verified = row.rel_error <= row.tolerance;
  return row;
}


void rate_against_peak(GemmReport& rep, const std::string& dtype, double peak) {
  if (peak <= 0) return;
  bool listed = false;
  for (auto& [dt, p] : rep.peaks)
    if (dt == dtype) p = peak, listed = true;
  if (!listed) rep.peaks.emplace_back(dtype, peak);
  for (auto& r : rep.rows)
    if (r.dtype == dtype) r.percent_of_peak = 100.0 * r.tflops / peak;
}

bool above_peak(const GemmRow& r) { return r.percent_of_peak && *r.percent_of_peak > 100; }

std::vector<std::string> over_peak_warnings(const std::vector<GemmRow>& rows) {
  const GemmRow* worst = nullptr;
  for (const auto& r : rows)
    if (above_peak(r) && (!worst || *r.percent_of_peak > *worst->percent_of_peak)) worst = &r;
  if (!worst) return {};
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "%s GEMM at n=%d measured %.0f%% of the peak, more than the hardware can do: the peak or the GEMM "
                "was timed while other work held the processors (spread +-%.0f%%); the %%peak column is not to be "
                "trusted: rerun on an idle machine",
                worst->dtype.c_str(), worst->n, *worst->percent_of_peak, spread_percent(worst->timing) / 2);
  return {buf};
}

std::vector<std::string> tensor_core_warnings(const std::vector<GemmRow>& rows) {
  std::vector<std::string> out;
  int largest = 0;
  for (const auto& r : rows) largest = std::max(largest, r.n);
  auto at_largest = [&](const std::string& dt) -> const GemmRow* {
    for (const auto& r : rows)
      if (r.dtype == dt && r.n == largest) return &r;
    return nullptr;
  };
  const GemmRow* fp32 = at_largest("fp32");
  if (!fp32) return out;
  for (std::string dt : {"tf32", "fp16", "bf16"}) {
    const GemmRow* r = at_largest(dt);
    if (r && r->tflops < 1.5 * fp32->tflops) {
      char buf[200];
      std::snprintf(buf, sizeof buf, "Tensor Cores not used: %s GEMM at n=%d is %.1f TFLOP/s, not clearly faster than fp32 (%.1f)",
                    dt.c_str(), largest, r->tflops, fp32->tflops);
      out.push_back(buf);
    }
  }
  return out;
}

GemmReport bench_gemm(const torch::Device& d, const std::vector<int>& sizes, const Recipe& recipe,
                      std::optional<double> cpu_peak_tflops, const std::string& cpu_peak_source) {
  GemmReport rep;
  rep.device = d.str();
  std::optional<GpuPeak> gpu;
  if (d.is_cuda()) {
    auto info = cuda_device_info(d.index());
    rep.device_name = info ? info->name : "unknown CUDA device";
    gpu = gpu_peak_for(rep.device_name);
    rep.peak_source = gpu ? gpu->source : "no datasheet entry for this GPU in data/gpu_peaks.tsv";
  } else {
    rep.device_name = "CPU";
    rep.peak_source = cpu_peak_source;
  }
  for (const auto& dt : gemm_dtypes(d)) {
    std::optional<double> peak = d.is_cuda() ? (gpu ? peak_of(*gpu, dt) : std::nullopt)
                                             : (dt == "fp32" ? cpu_peak_tflops : std::nullopt);
    for (int n : sizes) {
      auto row = measure_gemm(d, dt, n, recipe);
      rep.ok = rep.ok && row.verified;
      rep.rows.push_back(row);
    }
    if (peak) rate_against_peak(rep, dt, *peak);
  }
  set_tf32(false);
  if (d.is_cuda()) rep.warnings = tensor_core_warnings(rep.rows);
  return rep;
}

std::optional<double> best_verified_tflops(const std::vector<GemmRow>& rows, const std::string& dtype) {
  std::optional<double> best;
  for (const auto& r : rows)
    if (r.dtype == dtype && r.verified && !above_peak(r) && (!best || r.tflops > *best)) best = r.tflops;
  return best;
}

}  // namespace dlready
