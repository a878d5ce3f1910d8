// Functional checks: tensors on the device, host round trips, the tutorials' 2000x2000 matmul and a
// convolution forward/backward, each against a float64 reference computed on the CPU.
#include <torch/torch.h>

#include <cstdio>

#include "verify/checks.hpp"
#include "torch_runtime/cuda_support.hpp"

namespace dlready {
namespace {

// Inputs come from a seeded CPU generator, so every device sees the same numbers.
torch::Tensor seeded_randn(at::IntArrayRef shape, uint64_t seed) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  return at::randn(shape, gen, torch::TensorOptions().dtype(torch::kFloat));
}

std::string fmt(const char* f, double a, double b = 0) {
  char buf[160];
  std::snprintf(buf, sizeof buf, f, a, b);
  return buf;
}

std::optional<std::string> cuda_only(const CheckContext& c) {
  if (c.device.is_cuda()) return std::nullopt;
  return "the CPU is the host: there is nothing to transfer";
}

CheckResult tensors(const CheckContext& c) {
  const int64_t n = 1 << 20;
  auto x = torch::arange(1, n + 1, torch::TensorOptions().dtype(torch::kLong).device(c.device));
  int64_t sum = x.sum().item<int64_t>();
  auto f = torch::ones({1024, 1024}, torch::TensorOptions().device(c.device));
  double fsum = f.sum().item<double>();
  bool on_device = x.device() == c.device && f.device() == c.device;
  bool ok = on_device && sum == n * (n + 1) / 2 && fsum == 1024.0 * 1024.0;
  return {ok ? CheckStatus::pass : CheckStatus::fail,
          ok ? "arange and ones created on " + c.device.str() + ", sums exact"
             : "sums on " + c.device.str() + " are wrong: " + std::to_string(sum) + " and " + std::to_string(fsum),
          {{"int_sum", sum}, {"float_sum", fsum}}};
}

CheckResult round_trip(const CheckContext& c, bool pinned) {
  int64_t mib = c.full ? 256 : 16;
  auto host = torch::randint(0, 1 << 30, {mib << 18}, torch::TensorOptions().dtype(torch::kInt));
  if (pinned) host = host.pin_memory();
  auto t0 = std::chrono::steady_clock::now();
  auto dev = host.to(c.device, /*non_blocking=*/pinned);
  auto back = pinned ? torch::empty_like(host).pin_memory() : torch::empty_like(host);
  back.copy_(dev, /*non_blocking=*/pinned);
  synchronize(c.device);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  bool equal = torch::equal(host, back);
  double gbps = 2.0 * static_cast<double>(mib) * (1 << 20) / s / 1e9;
  return {equal ? CheckStatus::pass : CheckStatus::fail,
          equal ? fmt("%.0f MiB there and back, bit-for-bit equal (%.1f GB/s, first touch)", static_cast<double>(mib), gbps)
                : "the data that came back differs from what was sent",
          {{"mib", mib}, {"pinned", pinned}, {"equal", equal}, {"gb_per_s", gbps}}};
}

CheckResult matmul(const CheckContext& c) {
  // The tutorials' check: a 2000x2000 matmul. fp32 with TF32 off, so the tolerance is fp32's.
  constexpr double kTol = 1e-4;
  set_tf32(false);
  auto a = seeded_randn({2000, 2000}, 1), b = seeded_randn({2000, 2000}, 2);
  auto ref = a.to(torch::kDouble).mm(b.to(torch::kDouble));
  auto got = a.to(c.device).mm(b.to(c.device));
  double err = max_relative_error(got, ref);
  bool ok = err <= kTol;
  return {ok ? CheckStatus::pass : CheckStatus::fail,
          fmt(ok ? "2000x2000 fp32 matmul matches the float64 CPU reference: max rel. error %.1e (tolerance %.0e)"
                 : "2000x2000 fp32 matmul is wrong: max rel. error %.1e exceeds %.0e",
              err, kTol),
          {{"max_rel_error", err}, {"tolerance", kTol}}};
}

CheckResult conv(const CheckContext& c) {
  constexpr double kTol = 1e-4;
  at::globalContext().setAllowTF32CuDNN(false);
  auto x = seeded_randn({8, 16, 32, 32}, 3), w = seeded_randn({32, 16, 3, 3}, 4), gy = seeded_randn({8, 32, 32, 32}, 5);
  auto run = [&](const torch::Device& d, torch::Dtype t) {
    auto xd = x.to(d, t).requires_grad_(), wd = w.to(d, t).requires_grad_();
    auto y = torch::conv2d(xd, wd, {}, 1, 1);
    y.backward(gy.to(d, t));
    return std::array<torch::Tensor, 3>{y.detach(), xd.grad(), wd.grad()};
  };
  auto ref = run(torch::kCPU, torch::kDouble);
  auto got = run(c.device, torch::kFloat);
  double err = 0;
  for (size_t i = 0; i < 3; ++i) err = std::max(err, max_relative_error(got[i], ref[i]));
  std::string engine = c.device.is_cuda() ? (torch::cuda::cudnn_is_available() ? "cuDNN" : "no cuDNN") : "CPU";
  CheckStatus st = err <= kTol ? CheckStatus::pass : CheckStatus::fail;
  if (st == CheckStatus::pass && c.device.is_cuda() && !torch::cuda::cudnn_is_available()) st = CheckStatus::warn;
  return {st,
          engine + fmt(" conv2d 3x3 forward+backward: max rel. error %.1e vs float64 (tolerance %.0e)", err, kTol) +
              (st == CheckStatus::warn ? "; cuDNN is not available, convolutions use slow fallbacks" : ""),
          {{"max_rel_error", err}, {"tolerance", kTol}, {"engine", engine}}};
}

}  // namespace

void add_compute_checks(std::vector<Check>& out) {
  out.push_back({"tensors", "tensors created on the device", nullptr, tensors});
  out.push_back({"round-trip-pageable", "CPU -> device -> CPU, pageable memory", cuda_only,
                 [](const CheckContext& c) { return round_trip(c, false); }});
  out.push_back({"round-trip-pinned", "CPU -> device -> CPU, pinned memory, asynchronous copies", cuda_only,
                 [](const CheckContext& c) { return round_trip(c, true); }});
  out.push_back({"matmul", "2000x2000 matmul vs a float64 CPU reference", nullptr, matmul});
  out.push_back({"conv", "convolution forward and backward", nullptr, conv});
}

}  // namespace dlready
