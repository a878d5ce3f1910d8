// dlready verify and dlready bench on the CPU path (label "torch"): every check and benchmark runs
// here; the CUDA-only ones must say why they are skipped.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <thread>
#include <nlohmann/json.hpp>

#include "bench/copy_bench.hpp"
#include "bench/cpu_peak.hpp"
#include "bench/gemm_bench.hpp"
#include "bench/launch_floor.hpp"
#include "bench/train_bench.hpp"
#include "train/model.hpp"
#include "core/text.hpp"
#include "fixture.hpp"
#include "verify/checks.hpp"
#include "core/exit_code.hpp"
#include "module_api/options.hpp"

namespace dlready::test {
namespace {

const Check& find_check(const std::vector<Check>& all, const std::string& id) {
  for (const auto& c : all)
    if (c.id == id) return c;
  throw std::runtime_error("no check " + id);
}

TEST(Measure, MedianOfOddAndEvenCounts) {
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median({}), 0);
}

TEST(Measure, RecipeWarmsUpCalibratesAndTakesTheMedian) {
  // A fake clock: each operation takes 1 ms, the sync 0; one sample in the middle is slow.
  double clock = 0;
  int ops = 0, syncs = 0;
  int sample_index = -1;
  Recipe r;
  r.warmup = 3, r.samples = 5, r.min_sample_seconds = 0.010;
  auto op = [&] {
    ++ops;
    clock += (sample_index == 2) ? 0.005 : 0.001;
  };
  auto sync = [&] {
    ++syncs;
    if (syncs > r.warmup) ++sample_index;  // counts samples once warm-up is over
  };
  auto t = measure(op, sync, r, [&] { return clock; });
  EXPECT_EQ(t.inner, 10) << "10 ops of 1 ms fill a 10 ms sample";
  EXPECT_EQ(t.samples, 5);
  EXPECT_EQ(ops, 3 + 5 * 10);
  EXPECT_EQ(syncs, 3 + 5);
  EXPECT_NEAR(t.median_s, 0.001, 1e-12) << "the slow sample does not move the median";
  EXPECT_GT(t.max_s, 0.001);
}

TEST(VerifyChecks, RegistryHasEveryCheckOfTheIssue) {
  auto all = check_registry();
  for (std::string id : {"tensors", "round-trip-pageable", "round-trip-pinned", "matmul", "conv", "allocator",
                         "oom-recovery", "all-reduce"})
    EXPECT_NO_THROW(find_check(all, id)) << id;
}

TEST(VerifyChecks, EveryCheckOnTheCpuPassesOrSaysWhyItIsSkipped) {
  CheckContext ctx{torch::kCPU, false, 0};
  for (const auto& c : check_registry()) {
    auto r = run_check(c, ctx);
    EXPECT_TRUE(r.status == CheckStatus::pass || r.status == CheckStatus::skipped) << c.id << ": " << r.detail;
    EXPECT_FALSE(r.detail.empty()) << c.id;
  }
  auto all = check_registry();
  EXPECT_EQ(run_check(find_check(all, "matmul"), ctx).status, CheckStatus::pass);
  EXPECT_EQ(run_check(find_check(all, "conv"), ctx).status, CheckStatus::pass);
  EXPECT_EQ(run_check(find_check(all, "all-reduce"), ctx).status, CheckStatus::pass);
  auto rt = run_check(find_check(all, "round-trip-pinned"), ctx);
  EXPECT_EQ(rt.status, CheckStatus::skipped);
  EXPECT_NE(rt.detail.find("host"), std::string::npos) << rt.detail;
  EXPECT_EQ(run_check(find_check(all, "oom-recovery"), ctx).status, CheckStatus::skipped);
}

TEST(VerifyChecks, MatmulFiguresAreReported) {
  auto r = run_check(find_check(check_registry(), "matmul"), {torch::kCPU, false, 0});
  ASSERT_EQ(r.status, CheckStatus::pass) << r.detail;
  EXPECT_LT(r.data.at("max_rel_error").get<double>(), 1e-5);
  EXPECT_EQ(r.data.at("tolerance").get<double>(), 1e-4);
}

TEST(VerifyChecks, AllReduceAtFullLevelIsExact) {
  auto r = run_check(find_check(check_registry(), "all-reduce"), {torch::kCPU, true, 0});
  ASSERT_EQ(r.status, CheckStatus::pass) << r.detail;
  EXPECT_EQ(r.data.at("world").get<int>(), 2);
  EXPECT_EQ(r.data.at("elements").get<int64_t>(), 1 << 24);
  EXPECT_EQ(r.data.at("backend"), "Gloo");
}

TEST(VerifyChecks, ErrorMeasureCatchesWrongResults) {
  auto ref = torch::randn({64, 64}, torch::kDouble);
  EXPECT_EQ(max_relative_error(ref.to(torch::kFloat), ref.to(torch::kFloat).to(torch::kDouble)), 0);
  auto bad = ref.clone();
  bad[3][7] += 0.01 * ref.abs().max().item<double>();
  EXPECT_NEAR(max_relative_error(bad, ref), 0.01, 1e-9);
  auto nan = ref.clone();
  nan[0][0] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isinf(max_relative_error(nan, ref)));
  EXPECT_TRUE(std::isinf(max_relative_error(ref.slice(0, 0, 10), ref))) << "shape mismatch";
}

TEST(VerifyChecks, AnExceptionIsAFailThatQuotesItsFirstLine) {
  Check boom{"boom", "raises", nullptr, [](const CheckContext&) -> CheckResult {
               throw std::runtime_error("device lost\nbacktrace line");
             }};
  auto r = run_check(boom, {torch::kCPU, false, 0});
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.detail, "raised: device lost");
  Check never{"never", "n/a", [](const CheckContext&) { return std::optional<std::string>("not here"); }, nullptr};
  auto s = run_check(never, {torch::kCPU, false, 0});
  EXPECT_EQ(s.status, CheckStatus::skipped);
  EXPECT_EQ(s.detail, "not here");
}

TEST(Bench, CpuPeakIsMeasured) {
  auto p = measure_cpu_peak_fp32(1);
  EXPECT_GT(p.gflops, 0.1);
  EXPECT_FALSE(p.isa.empty());
  EXPECT_EQ(p.threads, 1);
}

TEST(Bench, GemmRowsAreVerifiedAndComparedWithThePeak) {
  Recipe r;
  r.warmup = 1, r.samples = 2, r.min_sample_seconds = 0.001;
  auto rep = bench_gemm(torch::kCPU, {64, 128}, r, 0.5, "test peak");
  ASSERT_EQ(rep.rows.size(), 4u) << "fp32 and bf16 at two sizes";
  EXPECT_TRUE(rep.ok);
  for (const auto& row : rep.rows) {
    EXPECT_TRUE(row.verified) << row.dtype << " " << row.n << " err " << row.rel_error;
    EXPECT_GT(row.tflops, 0);
    EXPECT_EQ(row.percent_of_peak.has_value(), row.dtype == "fp32") << "a peak only for the measured dtype";
  }
  EXPECT_EQ(rep.peak_source, "test peak");
  EXPECT_TRUE(rep.warnings.empty()) << "no Tensor Core rule on the CPU";
}

TEST(Bench, TensorCoresNotUsedIsFlagged) {
  auto row = [](std::string dt, int n, double tf) {
    GemmRow r;
    r.dtype = dt, r.n = n, r.tflops = tf;
    return r;
  };
  auto w = tensor_core_warnings({row("fp32", 4096, 50), row("fp16", 4096, 60), row("bf16", 4096, 700),
                                 row("fp16", 1024, 10)});
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("Tensor Cores not used: fp16"), std::string::npos) << w[0];
  EXPECT_TRUE(tensor_core_warnings({row("fp32", 4096, 50), row("tf32", 4096, 400)}).empty());
}

// Issue 50, item 5: fp32 GEMM at n=256 was reported at 177% of the peak measured just before it.
TEST(Bench, AFigureAboveThePeakIsFlaggedNotBelieved) {
  GemmReport rep;
  GemmRow small, large;
  small.dtype = large.dtype = "fp32", small.n = 256, large.n = 1024;
  small.tflops = 0.177, large.tflops = 0.08;
  small.timing.median_s = 1, small.timing.min_s = 0.8, small.timing.max_s = 1.4;
  rep.rows = {small, large};
  rate_against_peak(rep, "fp32", 0.1);
  auto w = over_peak_warnings(rep.rows);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("fp32 GEMM at n=256 measured 177% of the peak, more than the hardware can do"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("spread +-30%"), std::string::npos) << w[0];
  // Measured again after the GEMMs, a higher peak: the figures are believable again.
  rate_against_peak(rep, "fp32", 0.2);
  EXPECT_TRUE(over_peak_warnings(rep.rows).empty());
  ASSERT_EQ(rep.peaks.size(), 1u);
  EXPECT_DOUBLE_EQ(rep.peaks[0].second, 0.2);
  EXPECT_NEAR(*rep.rows[0].percent_of_peak, 88.5, 0.01);
}

TEST(Bench, HostCopyIsVerified) {
  Recipe r;
  r.warmup = 1, r.samples = 2;
  auto rows = bench_copy(torch::kCPU, 8 << 20, r);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].kind, "host");
  EXPECT_TRUE(rows[0].verified);
  EXPECT_GT(rows[0].gb_per_s, 0);
}

TEST(Bench, TrainingThroughputOfTheReferenceJob) {
  auto t = bench_train(torch::kCPU, "/usr/share/datasets/fashion-mnist", 2000, 2);
  if (!t.ran && t.skipped.find("fashion") != std::string::npos) GTEST_SKIP() << t.skipped;
  ASSERT_TRUE(t.ran) << t.skipped;
  EXPECT_EQ(t.samples, 2000);
  EXPECT_GT(t.samples_per_s, 0);
  EXPECT_NEAR(t.steps_per_s * 64, t.samples_per_s, 1e-6 * t.samples_per_s);
  EXPECT_GT(t.test_acc, 0.5) << "the timed steps trained the model";
  // SimpleNet's step: 784x256 and 256x10, forward and weight gradient, the second's input gradient.
  ASSERT_TRUE(t.flops_per_sample.has_value());
  EXPECT_DOUBLE_EQ(*t.flops_per_sample, 2.0 * (784 * 256 * 2 + 256 * 10 * 3));
  auto bound = compute_bound(t, 0.2);
  ASSERT_TRUE(bound.has_value());
  EXPECT_DOUBLE_EQ(bound->seconds, *t.flops_per_sample * 2000 / 0.2e12);
  EXPECT_DOUBLE_EQ(bound->epoch_over_bound, t.epoch_seconds / bound->seconds);
  EXPECT_FALSE(compute_bound(t, std::nullopt)) << "no GEMM rate, no bound";
  EXPECT_FALSE(linear_step_flops_per_sample(make_model(ModelKind::cnn, torch::kCPU).parameters()))
      << "convolutions are not counted as linear layers";
  auto missing = bench_train(torch::kCPU, "/nonexistent", 0, 2);
  EXPECT_FALSE(missing.ran);
  EXPECT_NE(missing.skipped.find("/nonexistent"), std::string::npos) << missing.skipped;
}

int sh(const std::string& cmd) { return WEXITSTATUS(std::system((cmd + " > /dev/null 2>&1").c_str())); }

TEST(VerifyCli, ReadyOnTheCpuAndExplainsCuda) {
  Fixture f;
  auto out = command_output(std::string(DLREADY_BINARY) + " verify --json 2>" + f.root + "/stderr");
  auto j = nlohmann::json::parse(out);
  // Issue 50 item 15: under --json standard error carries only what went wrong (nothing here).
  EXPECT_EQ(read_text(f.root + "/stderr"), "");
  EXPECT_EQ(j.at("schema"), "dlready.verify/1");
  EXPECT_EQ(j.at("devices").at(0).at("device"), "cpu");
  if (!j.at("cuda").at("usable").get<bool>()) {
    EXPECT_TRUE(j.at("ready").get<bool>()) << j.dump(2);
    EXPECT_FALSE(j.at("cuda").at("explanation").get<std::string>().empty());
    EXPECT_NE(j.at("summary").get<std::string>().find("CUDA not usable"), std::string::npos);
  }
  EXPECT_EQ(sh(std::string(DLREADY_BINARY) + " verify --device cpu"), to_int(ExitCode::ok));
}

TEST(VerifyCli, AskingForCudaWithoutItIsNotReadyWithTheDoctorsReason) {
  if (torch::cuda::is_available()) GTEST_SKIP() << "this machine has CUDA";
  auto text = command_output(std::string(DLREADY_BINARY) + " verify --device cuda 2>&1; echo rc=$?");
  EXPECT_NE(text.find("NOT READY"), std::string::npos) << text;
  EXPECT_NE(text.find("dlready doctor"), std::string::npos) << text;
  EXPECT_NE(text.find("rc=1"), std::string::npos) << text;
}

TEST(VerifyCli, BadArgumentsAreExitStatus2) {
  EXPECT_EQ(sh(std::string(DLREADY_BINARY) + " verify --level extreme"), 2);
  EXPECT_EQ(sh(std::string(DLREADY_BINARY) + " bench flops"), 2);
  EXPECT_EQ(sh(std::string(DLREADY_BINARY) + " bench gemm --sizes 8"), 2);
  EXPECT_EQ(sh(std::string(DLREADY_BINARY) + " bench gemm --device tpu"), 2) << "not a device: a usage error";
}

// A CPU-only READY says so, and --require-gpu turns it into NOT READY (issue 15, item 7).
TEST(VerifyCli, ACpuOnlyReadySaysSoAndRequireGpuRefusesIt) {
  if (torch::cuda::is_available()) GTEST_SKIP() << "this machine has CUDA";
  auto text = command_output(std::string(DLREADY_BINARY) + " verify 2>&1; echo rc=$?");
  EXPECT_NE(text.find("READY (CPU only, no GPU checked): cpu "), std::string::npos) << text;
  EXPECT_NE(text.find(" passed"), std::string::npos) << text;
  EXPECT_NE(text.find("rc=0"), std::string::npos) << text;
  text = command_output(std::string(DLREADY_BINARY) + " verify --require-gpu 2>&1; echo rc=$?");
  EXPECT_NE(text.find("NOT READY: --require-gpu and no CUDA device was checked"), std::string::npos) << text;
  EXPECT_NE(text.find("rc=1"), std::string::npos) << text;
}

TEST(LaunchFloor, IsACudaMeasurementAndSaysSo) {
  auto f = measure_launch_floor(torch::Device(torch::kCPU), 100, Recipe{});
  EXPECT_FALSE(f.verified);
  EXPECT_NE(f.error.find("--device cuda"), std::string::npos) << f.error;
  EXPECT_EQ(f.replay.samples, 0);
}

TEST(BenchCli, FloorOnTheCpuFailsWithTheReasonAndAllSkipsIt) {
  auto text = command_output(std::string(DLREADY_BINARY) + " bench floor --device cpu 2>&1; echo rc=$?");
  EXPECT_NE(text.find("launch-bound floor: FAILED"), std::string::npos) << text;
  EXPECT_NE(text.find("--device cuda"), std::string::npos) << text;
  EXPECT_EQ(text.find("a result was wrong"), std::string::npos) << "nothing was measured: " << text;
  EXPECT_NE(text.find("rc=1"), std::string::npos) << text;
  auto out = command_output(std::string(DLREADY_BINARY) + " bench copy --device cpu --samples 2 --json 2>/dev/null");
  EXPECT_FALSE(nlohmann::json::parse(out).contains("floor")) << "not asked for";
  EXPECT_EQ(sh(std::string(DLREADY_BINARY) + " bench floor --kernels 0"), 2);
}

TEST(BenchCli, GemmJsonOnTheCpu) {
  auto out = command_output(std::string(DLREADY_BINARY) + " bench gemm --device cpu --sizes 64,128 --samples 2 --json 2>/dev/null");
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j.at("schema"), "dlready.bench/1");
  EXPECT_TRUE(j.at("ok").get<bool>());
  EXPECT_EQ(j.at("gemm").at("rows").size(), 4u);
  EXPECT_GT(j.at("cpu_peak").at("fp32_tflops").get<double>(), 0);
  EXPECT_FALSE(j.contains("copy")) << "only gemm was asked for";
  for (const auto& row : j.at("gemm").at("rows")) {
    EXPECT_TRUE(row.at("spread_percent").is_number()) << row.dump();
    EXPECT_TRUE(row.at("percent_of_peak_reliable").is_boolean()) << row.dump();
  }
}

// Issue 50, item 5: bench takes train's thread choice (fewer on a busy machine, --threads as given)
// and says that the machine is busy beside its figures.
TEST(BenchCli, ABusyMachineGetsTrainsThreadChoiceAndAWarning) {
  const int cpus = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
  if (cpus < 2) GTEST_SKIP() << "one processor: the default is one thread anyway";
  std::vector<pid_t> spinners;
  for (int i = 0; i < cpus; ++i)
    spinners.push_back(start_shell("timeout 60 sh -c 'while :; do :; done' </dev/null >/dev/null 2>&1"));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  std::string base = "env -u OMP_NUM_THREADS -u MKL_NUM_THREADS " + std::string(DLREADY_BINARY) +
                     " bench gemm --device cpu --sizes 64 --samples 2";
  auto busy = command_output(base + " 2>&1; echo rc=$?");
  auto given = command_output(base + " --threads 2 --json 2>/dev/null");
  for (pid_t p : spinners) ::kill(p, SIGTERM), ::waitpid(p, nullptr, 0);
  EXPECT_NE(busy.find(" busy: using 1 thread; --threads N to override"), std::string::npos) << busy;
  EXPECT_NE(busy.find("; 1 thread(s);"), std::string::npos) << busy;
  EXPECT_NE(busy.find("WARNING: other work keeps this machine's processors busy"), std::string::npos) << busy;
  EXPECT_NE(busy.find("spread"), std::string::npos) << busy;
  auto j = nlohmann::json::parse(given, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << given;
  EXPECT_EQ(j.at("threads"), 2);
  EXPECT_EQ(j.at("thread_note"), "");
}

// Issue 50, item 1: the module's run path is the torch wheel's folders and nothing else — no empty
// entry (the current directory) and no folder that does not exist (TorchConfig's MKL guesses).
TEST(ModuleLibraries, TheRunPathHoldsOnlyFoldersThatExist) {
  std::string module = std::filesystem::path(DLREADY_BINARY).parent_path().string() + "/libdlready_train.so";
  auto out = command_output("readelf -d " + module + " 2>&1");
  auto at = out.find("Library runpath: [");
  ASSERT_NE(at, std::string::npos) << out;
  std::string runpath = out.substr(at + 18, out.find(']', at) - at - 18);
  for (const auto& dir : split(runpath, ':', true)) {
    EXPECT_FALSE(dir.empty()) << "an empty entry: " << runpath;
    EXPECT_TRUE(std::filesystem::is_directory(dir)) << dir << " in " << runpath;
  }
  EXPECT_NE(runpath.find("/torch/lib"), std::string::npos) << runpath;
}

// The module must load the CUDA libraries of its own torch wheel (nvidia/*/lib beside it), never a
// CUDA toolkit's copy of the same soname: the first GPU machine lent crashed in cuDNN when the
// module took the toolkit's libcudart. ldd follows the module's run path as the loader would.
TEST(ModuleLibraries, CudaLibrariesComeFromTheTorchWheel) {
  std::string module = std::filesystem::path(DLREADY_BINARY).parent_path().string() + "/libdlready_train.so";
  auto out = command_output("ldd " + module + " 2>&1");
  size_t checked = 0;
  for (const char* soname : {"libcudart.so.", "libcublas.so.", "libcudnn.so."}) {
    auto at = out.find(soname);
    if (at == std::string::npos) continue;  // a CPU-only LibTorch links none
    auto line = out.substr(at, out.find('\n', at) - at);
    EXPECT_NE(line.find("/nvidia/"), std::string::npos) << "not the wheel's copy: " << line;
    ++checked;
  }
  if (!checked) GTEST_SKIP() << "this LibTorch links no CUDA library";
}

}  // namespace
}  // namespace dlready::test
