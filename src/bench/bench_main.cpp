// dlready_bench_main: GEMM, copy and training throughput on one device, as a table and as JSON
// (schema dlready.bench/1). Every figure is a median from the recipe in bench/measure.hpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <nlohmann/json.hpp>

#include "bench/copy_bench.hpp"
#include "bench/cpu_peak.hpp"
#include "bench/gemm_bench.hpp"
#include "bench/launch_floor.hpp"
#include "bench/train_bench.hpp"
#include "core/text.hpp"
#include "diagnose/rules.hpp"
#include "probe/gather.hpp"
#include "train/device_choice.hpp"
#include "verify/verify_options.hpp"

namespace dlready {
namespace {

bool named(const BenchOptions& o, const std::string& what) {
  return std::find(o.what.begin(), o.what.end(), what) != o.what.end();
}

bool wants(const BenchOptions& o, const std::string& what) {
  if (o.what.empty()) return true;
  for (const auto& w : o.what)
    if (w == what || w == "all") return true;
  return false;
}

// The doctor's blas-reference finding, if any (the CPU path's usual cause of a slow matmul).
std::string blas_finding() {
  GatherOptions g;
  g.env = process_environment();
  auto facts = gather_facts(g);
  if (!facts.error.empty()) return "";
  for (const auto& f : diagnose(facts.facts).findings)
    if (f.id == "blas-reference") return f.title + " [blas-reference]";
  return "";
}

nlohmann::json timing_json(const Timing& t) {
  return {{"median_s", t.median_s}, {"min_s", t.min_s}, {"max_s", t.max_s}, {"samples", t.samples}, {"inner", t.inner}};
}

}  // namespace
}  // namespace dlready

extern "C" int dlready_bench_main(const dlready::BenchOptions* opt) {
  using namespace dlready;
  const BenchOptions& o = *opt;
  try {
    auto choice = choose_device(o.device);
    if (!choice.device) {
      std::fprintf(stderr, "dlready bench: %s\n", choice.why.c_str());
      return kBenchFailed;
    }
    torch::Device d = *choice.device;
    std::FILE* human = o.json ? stderr : stdout;
    Recipe recipe;
    if (o.samples > 0) recipe.samples = o.samples;
    std::fprintf(human, "dlready bench on %s (%s); %d thread(s); median of %d samples after %d warm-up runs\n",
                 d.str().c_str(), choice.why.c_str(), at::get_num_threads(), recipe.samples, recipe.warmup);
    nlohmann::json j = {{"schema", "dlready.bench/1"}, {"device", d.str()}, {"threads", at::get_num_threads()},
                        {"recipe", {{"warmup", recipe.warmup}, {"samples", recipe.samples},
                                    {"min_sample_seconds", recipe.min_sample_seconds}}}};
    bool ok = true;      // exit 0: everything asked for was measured and verified
    bool wrong = false;  // a measurement's result failed its check
    std::vector<std::string> warnings;

    if (wants(o, "gemm")) {
      std::optional<double> cpu_peak;
      std::string cpu_source;
      if (!d.is_cuda()) {
        auto p = measure_cpu_peak_fp32(at::get_num_threads());
        cpu_peak = p.gflops / 1000;
        cpu_source = "measured: " + p.isa + " FMA chains on " + std::to_string(p.threads) + " thread(s)";
        j["cpu_peak"] = {{"fp32_tflops", *cpu_peak}, {"isa", p.isa}, {"threads", p.threads}};
      }
      auto sizes = o.sizes.empty() ? default_gemm_sizes(d) : o.sizes;
      auto rep = bench_gemm(d, sizes, recipe, cpu_peak, cpu_source);
      std::fprintf(human, "\nGEMM on %s (peak: %s)\n  dtype      n   TFLOP/s  %%peak  rel.err\n", rep.device_name.c_str(),
                   rep.peak_source.c_str());
      nlohmann::json rows = nlohmann::json::array();
      double best_fp32_pct = 0;
      for (const auto& r : rep.rows) {
        std::string pct = r.percent_of_peak ? std::to_string(std::lround(*r.percent_of_peak)) + "%" : "-";
        std::fprintf(human, "  %-5s %6d %9.3f %6s  %.1e%s\n", r.dtype.c_str(), r.n, r.tflops, pct.c_str(), r.rel_error,
                     r.verified ? "" : "  WRONG RESULT");
        if (r.dtype == "fp32" && r.percent_of_peak) best_fp32_pct = std::max(best_fp32_pct, *r.percent_of_peak);
        rows.push_back({{"dtype", r.dtype}, {"n", r.n}, {"tflops", r.tflops}, {"percent_of_peak", r.percent_of_peak ? nlohmann::json(*r.percent_of_peak) : nlohmann::json()},
                        {"rel_error", r.rel_error}, {"tolerance", r.tolerance}, {"verified", r.verified},
                        {"timing", timing_json(r.timing)}});
      }
      warnings.insert(warnings.end(), rep.warnings.begin(), rep.warnings.end());
      if (!d.is_cuda() && best_fp32_pct > 0 && best_fp32_pct < 10) {
        std::string w = "fp32 GEMM reaches only " + std::to_string(static_cast<int>(best_fp32_pct)) +
                        "% of the measured peak: the BLAS behind LibTorch is slow here";
        if (auto b = blas_finding(); !b.empty()) w += "; dlready doctor: " + b;
        warnings.push_back(w);
      }
      nlohmann::json peaks = nlohmann::json::object();
      for (const auto& [dt, p] : rep.peaks) peaks[dt] = p;
      j["gemm"] = {{"device_name", rep.device_name}, {"peak_tflops", peaks}, {"peak_source", rep.peak_source},
                   {"rows", rows}, {"ok", rep.ok}};
      ok = ok && rep.ok;
      wrong = wrong || !rep.ok;
    }

    if (wants(o, "copy")) {
      auto rows = bench_copy(d, int64_t{256} << 20, recipe);
      std::fprintf(human, "\ncopies of 256 MiB\n  kind            GB/s\n");
      nlohmann::json jr = nlohmann::json::array();
      for (const auto& r : rows) {
        std::fprintf(human, "  %-13s %7.1f%s\n", r.kind.c_str(), r.gb_per_s, r.verified ? "" : "  WRONG RESULT");
        jr.push_back({{"kind", r.kind}, {"bytes", r.bytes}, {"gb_per_s", r.gb_per_s}, {"verified", r.verified},
                      {"timing", timing_json(r.timing)}});
        ok = ok && r.verified;
        wrong = wrong || !r.verified;
      }
      j["copy"] = jr;
    }

    // The floor needs the training step's kernel count unless --kernels gives it.
    const bool floor_wanted = named(o, "floor") || (wants(o, "floor") && d.is_cuda());
    std::optional<TrainBench> trained;
    if (wants(o, "train") || (floor_wanted && d.is_cuda() && o.kernels == 0)) {
      auto t = bench_train(d, o.data, d.is_cuda() ? 0 : 20000, 3);
      if (t.ran) {
        std::string graph = t.graph_kernels > 0 ? ", CUDA graph of " + std::to_string(t.graph_kernels) + " kernels" : "";
        std::fprintf(human, "\ntraining step (SimpleNet, batch 64, Adam, %s engine%s): %.0f samples/s, %.0f steps/s, "
                            "%.3f s per %lld-sample epoch (test accuracy %.1f%%)\n",
                     t.engine.c_str(), graph.c_str(), t.samples_per_s, t.steps_per_s, t.epoch_seconds,
                     static_cast<long long>(t.samples), 100 * t.test_acc);
        j["train"] = {{"engine", t.engine}, {"samples", t.samples}, {"samples_per_s", t.samples_per_s},
                      {"steps_per_s", t.steps_per_s}, {"epoch_seconds", t.epoch_seconds}, {"test_acc", t.test_acc},
                      {"steps_per_epoch", t.steps_per_epoch}, {"graph_kernels", t.graph_kernels}};
        trained = t;
      } else {
        std::fprintf(human, "\ntraining step: SKIPPED: %s\n", t.skipped.c_str());
        j["train"] = {{"skipped", t.skipped}};
      }
    }

    if (floor_wanted) {
      int64_t kernels = o.kernels > 0 ? o.kernels : trained ? trained->graph_kernels : 0;
      int64_t steps = o.steps > 0 ? o.steps : trained ? trained->steps_per_epoch : 938;  // 60000 / 64
      LaunchFloor f;
      if (kernels > 0 || !d.is_cuda()) {
        f = measure_launch_floor(d, kernels, recipe);
      } else {
        f.error = trained ? "the training step's kernel count is unknown (not captured as a CUDA graph, or LibTorch < 2.8): "
                            "give --kernels"
                          : "no kernel count: give --kernels, or let the training benchmark run";
      }
      if (f.error.empty()) {
        double floor_epoch = f.replay.median_s * static_cast<double>(steps);
        std::fprintf(human, "\nlaunch-bound floor: a CUDA graph of %lld empty kernels replays in %.1f us (%.2f us per kernel); "
                            "x %lld steps = %.3f s per epoch\n",
                     static_cast<long long>(kernels), f.replay.median_s * 1e6, f.per_kernel_us,
                     static_cast<long long>(steps), floor_epoch);
        nlohmann::json jf = {{"kernels", kernels}, {"steps_per_epoch", steps}, {"replay", timing_json(f.replay)},
                             {"per_kernel_us", f.per_kernel_us}, {"epoch_seconds", floor_epoch},
                             {"verified", f.verified}};
        if (trained && trained->graph_kernels == kernels && steps == trained->steps_per_epoch) {
          double ratio = trained->epoch_seconds / floor_epoch;
          std::fprintf(human, "  training epoch %.3f s = %.2fx the floor (target <= 2x)\n", trained->epoch_seconds, ratio);
          jf["train_over_floor"] = ratio;
        }
        j["floor"] = jf;
      } else {
        // A failure when asked for by name, or when measured and wrong; else skipped (e.g. under `all`).
        bool failed = named(o, "floor") || f.replay.samples > 0;
        std::fprintf(human, "\nlaunch-bound floor: %s: %s\n", failed ? "FAILED" : "SKIPPED", f.error.c_str());
        j["floor"] = {{"error", f.error}};
        ok = ok && !failed;
        wrong = wrong || f.replay.samples > 0;
      }
    }

    for (const auto& w : warnings) std::fprintf(human, "WARNING: %s\n", w.c_str());
    j["warnings"] = warnings;
    j["ok"] = ok;
    if (wrong) std::fprintf(human, "a result was wrong: the figures above it are not to be trusted\n");
    if (o.json) std::cout << j.dump(2) << std::endl;
    return ok ? kBenchOk : kBenchFailed;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dlready bench: %s\n", first_line(e.what()).c_str());
    return kBenchFailed;
  }
}
