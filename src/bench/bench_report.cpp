#include "bench/bench_report.hpp"

#include <algorithm>
#include <cmath>

#include "bench/copy_bench.hpp"
#include "bench/cpu_peak.hpp"
#include "bench/gemm_bench.hpp"
#include "bench/launch_floor.hpp"
#include "doctor/examine.hpp"

namespace dlready {
namespace {

// The doctor's blas-reference finding, if any (the CPU path's usual cause of a slow matmul).
std::optional<std::string> blas_finding() {
  auto e = examine_this_machine();
  if (!e.error.empty()) return std::nullopt;
  for (const auto& f : e.report.findings)
    if (f.id == "blas-reference") return f.title + " [blas-reference]";
  return std::nullopt;
}

nlohmann::json gemm_row_json(const GemmRow& r) {
  return {{"dtype", r.dtype},
          {"n", r.n},
          {"tflops", r.tflops},
          {"percent_of_peak", r.percent_of_peak ? nlohmann::json(*r.percent_of_peak) : nlohmann::json()},
          {"percent_of_peak_reliable", !above_peak(r)},
          {"spread_percent", spread_percent(r.timing)},
          {"rel_error", r.rel_error},
          {"tolerance", r.tolerance},
          {"verified", r.verified},
          {"timing", timing_json(r.timing)}};
}

// The CPU epoch against its compute bound (on CUDA the launch floor is the bound that matters). The
// GEMM rate is the gemm section's best fp32 row, or measured here at its CPU sizes when it did not run.
void say_compute_bound(BenchRun& run, const TrainBench& t) {
  auto gemm = run.gemm_fp32_tflops;
  if (!gemm) {
    std::vector<GemmRow> rows;
    for (int n : default_gemm_sizes(run.device)) rows.push_back(measure_gemm(run.device, "fp32", n, run.recipe));
    gemm = best_verified_tflops(rows, "fp32");
  }
  auto b = compute_bound(t, gemm);
  if (!b) return;
  std::fprintf(run.human,
               "  compute bound: %.0f kFLOP/sample x %lld samples = %.2f GFLOP at %.3f TFLOP/s (best fp32 GEMM) = "
               "%.3f s; the epoch is %.2fx it (target <= 1.5x)\n",
               *t.flops_per_sample / 1e3, static_cast<long long>(t.samples), b->gflop_per_epoch, b->gemm_tflops,
               b->seconds, b->epoch_over_bound);
  run.json["train"]["compute_bound"] = {{"flops_per_sample", *t.flops_per_sample}, {"gflop_per_epoch", b->gflop_per_epoch},
                                        {"gemm_fp32_tflops", b->gemm_tflops}, {"seconds", b->seconds},
                                        {"epoch_over_bound", b->epoch_over_bound}};
}

}  // namespace

bool BenchRun::named(const std::string& what) const {
  return std::find(options.what.begin(), options.what.end(), what) != options.what.end();
}

bool BenchRun::wants(const std::string& what) const {
  if (options.what.empty()) return true;
  for (const auto& w : options.what)
    if (w == what || w == "all") return true;
  return false;
}

nlohmann::json timing_json(const Timing& t) {
  return {{"median_s", t.median_s}, {"min_s", t.min_s}, {"max_s", t.max_s}, {"samples", t.samples}, {"inner", t.inner}};
}

void bench_gemm_section(BenchRun& run) {
  const auto& d = run.device;
  std::optional<double> cpu_peak;
  std::string cpu_source;
  if (!d.is_cuda()) {
    auto p = measure_cpu_peak_fp32(at::get_num_threads());
    cpu_peak = p.gflops / 1000;
    cpu_source = "measured: " + p.isa + " FMA chains on " + std::to_string(p.threads) + " thread(s)";
    run.json["cpu_peak"] = {{"fp32_tflops", *cpu_peak}, {"isa", p.isa}, {"threads", p.threads}};
  }
  auto sizes = run.options.sizes.empty() ? default_gemm_sizes(d) : run.options.sizes;
  auto rep = bench_gemm(d, sizes, run.recipe, cpu_peak, cpu_source);
  if (cpu_peak) {
    // Measured again after the GEMMs: a peak taken while something else ran is too low, and the
    // higher of the two is the nearer to the hardware's.
    auto again = measure_cpu_peak_fp32(at::get_num_threads());
    if (again.gflops / 1000 > *cpu_peak) {
      cpu_peak = again.gflops / 1000;
      rate_against_peak(rep, "fp32", *cpu_peak);
      run.json["cpu_peak"]["fp32_tflops"] = *cpu_peak;
    }
  }
  std::fprintf(run.human, "\nGEMM on %s (peak: %s)\n  dtype      n   TFLOP/s  %%peak  spread  rel.err\n",
               rep.device_name.c_str(), rep.peak_source.c_str());
  nlohmann::json rows = nlohmann::json::array();
  double best_fp32_pct = 0;
  for (const auto& r : rep.rows) {
    std::string pct = r.percent_of_peak ? std::to_string(std::lround(*r.percent_of_peak)) + "%" : "-";
    if (above_peak(r)) pct += "?";
    std::string spread = "+-" + std::to_string(std::lround(spread_percent(r.timing) / 2)) + "%";
    std::fprintf(run.human, "  %-5s %6d %9.3f %6s %7s  %.1e%s\n", r.dtype.c_str(), r.n, r.tflops, pct.c_str(),
                 spread.c_str(), r.rel_error, r.verified ? "" : "  WRONG RESULT");
    if (r.dtype == "fp32" && r.percent_of_peak) best_fp32_pct = std::max(best_fp32_pct, *r.percent_of_peak);
    rows.push_back(gemm_row_json(r));
  }
  run.warnings.insert(run.warnings.end(), rep.warnings.begin(), rep.warnings.end());
  for (const auto& w : over_peak_warnings(rep.rows)) run.warnings.push_back(w);
  if (!d.is_cuda() && best_fp32_pct > 0 && best_fp32_pct < 10) {
    std::string w = "fp32 GEMM reaches only " + std::to_string(static_cast<int>(best_fp32_pct)) +
                    "% of the measured peak: the BLAS behind LibTorch is slow here";
    if (auto b = blas_finding()) w += "; dlready doctor: " + *b;
    run.warnings.push_back(w);
  }
  nlohmann::json peaks = nlohmann::json::object();
  for (const auto& [dt, p] : rep.peaks) peaks[dt] = p;
  run.gemm_fp32_tflops = best_verified_tflops(rep.rows, "fp32");
  run.json["gemm"] = {{"device_name", rep.device_name}, {"peak_tflops", peaks}, {"peak_source", rep.peak_source},
                      {"rows", rows}, {"ok", rep.ok}};
  run.ok = run.ok && rep.ok;
  run.wrong = run.wrong || !rep.ok;
}

void bench_copy_section(BenchRun& run) {
  auto rows = bench_copy(run.device, int64_t{256} << 20, run.recipe);
  std::fprintf(run.human, "\ncopies of 256 MiB\n  kind            GB/s\n");
  nlohmann::json jr = nlohmann::json::array();
  for (const auto& r : rows) {
    std::fprintf(run.human, "  %-13s %7.1f%s\n", r.kind.c_str(), r.gb_per_s, r.verified ? "" : "  WRONG RESULT");
    jr.push_back({{"kind", r.kind}, {"bytes", r.bytes}, {"gb_per_s", r.gb_per_s}, {"verified", r.verified},
                  {"timing", timing_json(r.timing)}});
    run.ok = run.ok && r.verified;
    run.wrong = run.wrong || !r.verified;
  }
  run.json["copy"] = jr;
}

std::optional<TrainBench> bench_train_section(BenchRun& run, bool floor_wanted) {
  const auto& d = run.device;
  if (!run.wants("train") && !(floor_wanted && d.is_cuda() && run.options.kernels == 0)) return std::nullopt;
  auto t = bench_train(d, run.options.data, d.is_cuda() ? 0 : 20000, 3);
  if (!t.ran) {
    std::fprintf(run.human, "\ntraining step: SKIPPED: %s\n", t.skipped.c_str());
    run.json["train"] = {{"skipped", t.skipped}};
    return std::nullopt;
  }
  std::string graph = t.graph_kernels > 0 ? ", CUDA graph of " + std::to_string(t.graph_kernels) + " kernels" : "";
  std::fprintf(run.human,
               "\ntraining step (SimpleNet, batch 64, Adam, %s engine%s, %d thread(s)): %.0f samples/s, %.0f steps/s, "
               "%.3f s per %lld-sample epoch (median, spread +-%.0f%%; test accuracy %.1f%%)\n",
               t.engine.c_str(), graph.c_str(), at::get_num_threads(), t.samples_per_s, t.steps_per_s, t.epoch_seconds,
               static_cast<long long>(t.samples), t.spread_percent / 2, 100 * t.test_acc);
  run.json["train"] = {{"engine", t.engine}, {"samples", t.samples}, {"samples_per_s", t.samples_per_s},
                       {"steps_per_s", t.steps_per_s}, {"epoch_seconds", t.epoch_seconds},
                       {"spread_percent", t.spread_percent}, {"test_acc", t.test_acc},
                       {"steps_per_epoch", t.steps_per_epoch}, {"graph_kernels", t.graph_kernels}};
  if (!d.is_cuda()) say_compute_bound(run, t);
  return t;
}

void bench_floor_section(BenchRun& run, const std::optional<TrainBench>& trained) {
  const auto& d = run.device;
  int64_t kernels = run.options.kernels > 0 ? run.options.kernels : trained ? trained->graph_kernels : 0;
  int64_t steps = run.options.steps > 0 ? run.options.steps : trained ? trained->steps_per_epoch : 938;  // 60000 / 64
  LaunchFloor f;
  if (kernels > 0 || !d.is_cuda()) {
    f = measure_launch_floor(d, kernels, run.recipe);
  } else {
    f.error = trained ? "the training step's kernel count is unknown (not captured as a CUDA graph, or LibTorch < "
                        "2.8): give --kernels"
                      : "no kernel count: give --kernels, or let the training benchmark run";
  }
  if (!f.error.empty()) {
    // A failure when asked for by name, or when measured and wrong; else skipped (e.g. under `all`).
    bool failed = run.named("floor") || f.replay.samples > 0;
    std::fprintf(run.human, "\nlaunch-bound floor: %s: %s\n", failed ? "FAILED" : "SKIPPED", f.error.c_str());
    run.json["floor"] = {{"error", f.error}};
    run.ok = run.ok && !failed;
    run.wrong = run.wrong || f.replay.samples > 0;
    return;
  }
  double floor_epoch = f.replay.median_s * static_cast<double>(steps);
  std::fprintf(run.human,
               "\nlaunch-bound floor: a CUDA graph of %lld empty kernels replays in %.1f us (%.2f us per kernel); "
               "x %lld steps = %.3f s per epoch\n",
               static_cast<long long>(kernels), f.replay.median_s * 1e6, f.per_kernel_us,
               static_cast<long long>(steps), floor_epoch);
  nlohmann::json jf = {{"kernels", kernels}, {"steps_per_epoch", steps}, {"replay", timing_json(f.replay)},
                       {"per_kernel_us", f.per_kernel_us}, {"epoch_seconds", floor_epoch}, {"verified", f.verified}};
  if (trained && trained->graph_kernels == kernels && steps == trained->steps_per_epoch) {
    double ratio = trained->epoch_seconds / floor_epoch;
    std::fprintf(run.human, "  training epoch %.3f s = %.2fx the floor (target <= 2x)\n", trained->epoch_seconds, ratio);
    jf["train_over_floor"] = ratio;
  }
  run.json["floor"] = jf;
}

}  // namespace dlready
