// The all-reduce across the local devices, on LibTorch's own c10d process groups: Gloo between two
// CPU ranks (threads of this process, over loopback TCP), NCCL across every local GPU.
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/torch.h>

#include <future>
#include <thread>

#include "torch_runtime/process_group.hpp"
#include "verify/checks.hpp"

namespace dlready {
namespace {

constexpr std::chrono::seconds kTimeout{30};

std::optional<std::string> applies(const CheckContext& c) {
  if (c.device.is_cuda() && c.device.index() != 0) return "cuda:0's all-reduce covers every local GPU";
  if (c.device.is_cuda() && !nccl_available()) return "this build has no NCCL headers";
  return std::nullopt;
}

CheckResult all_reduce(const CheckContext& c) {
  bool gpu = c.device.is_cuda();
  int world = gpu ? std::max(1, c.cuda_devices) : 2;
  const int64_t n = c.full ? (1 << 24) : (1 << 16);
  auto store = c10::make_intrusive<c10d::HashStore>();
  // Rank r contributes (r + 1) * (i mod 4096): small integers, so the sum is exact in float32 and
  // every rank's result must equal the expected tensor bit for bit.
  std::vector<std::future<torch::Tensor>> ranks;
  for (int r = 0; r < world; ++r)
    ranks.push_back(std::async(std::launch::async, [&, r] {
      auto dev = gpu ? torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(r)) : torch::Device(torch::kCPU);
      auto pg = gpu ? make_nccl_group(store, r, world, r, kTimeout) : make_gloo_group(store, r, world, kTimeout);
      std::vector<torch::Tensor> t{torch::arange(n, torch::TensorOptions().dtype(torch::kFloat).device(dev))
                                       .remainder_(4096)
                                       .mul_(r + 1)};
      pg->allreduce(t)->wait(kTimeout);
      auto out = t[0].cpu();
      shutdown_group(pg);
      return out;
    }));
  std::vector<torch::Tensor> results;
  for (auto& f : ranks) results.push_back(f.get());  // rethrows a rank's exception
  double factor = world * (world + 1) / 2.0;
  auto expect = torch::arange(n, torch::TensorOptions().dtype(torch::kFloat)).remainder_(4096).mul_(factor);
  bool ok = true;
  for (const auto& r : results) ok = ok && torch::equal(r, expect);
  std::string backend = gpu ? "NCCL" : "Gloo";
  return {ok ? CheckStatus::pass : CheckStatus::fail,
          backend + " all-reduce of " + std::to_string(n) + " floats across " + std::to_string(world) +
              (gpu ? " GPU(s)" : " CPU ranks") + (ok ? ": every rank holds the exact sum" : ": wrong sum on some rank"),
          {{"backend", backend}, {"world", world}, {"elements", n}, {"exact", ok}}};
}

}  // namespace

void add_collective_checks(std::vector<Check>& out) {
  out.push_back({"all-reduce", "all-reduce across the local devices (Gloo on CPU, NCCL on GPUs)", applies, all_reduce});
}

}  // namespace dlready
