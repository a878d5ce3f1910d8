// Memory checks on CUDA: the caching allocator keeps freed blocks and empty_cache returns them; an
// out-of-memory error is caught and the process keeps working afterwards.
#include <c10/util/Exception.h>
#include <torch/torch.h>

#include <cstdio>

#include "verify/checks.hpp"
#include "torch_runtime/cuda_support.hpp"

namespace dlready {
namespace {

constexpr int64_t kMiB = 1 << 20;

std::optional<std::string> cuda_only(const CheckContext& c, const char* cpu_reason) {
  if (!c.device.is_cuda()) return cpu_reason;
  if (!cuda_allocator_stats(c.device.index())) return "this build has no CUDA allocator headers";
  return std::nullopt;
}

std::string mib(int64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f MiB", static_cast<double>(bytes) / kMiB);
  return buf;
}

CheckResult allocator(const CheckContext& c) {
  int idx = c.device.index();
  synchronize(c.device);
  cuda_empty_cache();
  auto before = *cuda_allocator_stats(idx);
  const int64_t bytes = 256 * kMiB;
  auto t = torch::empty({bytes / 4}, torch::TensorOptions().device(c.device));
  auto held = *cuda_allocator_stats(idx);
  t = torch::Tensor();
  auto freed = *cuda_allocator_stats(idx);
  cuda_empty_cache();
  auto emptied = *cuda_allocator_stats(idx);
  nlohmann::json data = {{"allocated_before", before.allocated}, {"allocated_held", held.allocated},
                         {"allocated_freed", freed.allocated},   {"reserved_freed", freed.reserved},
                         {"reserved_emptied", emptied.reserved}};
  if (held.allocated - before.allocated < bytes || freed.allocated != before.allocated)
    return {CheckStatus::fail,
            "allocated memory did not follow the tensor: " + mib(before.allocated) + " -> " + mib(held.allocated) +
                " -> " + mib(freed.allocated),
            data};
  if (freed.reserved < before.reserved + bytes)
    return {CheckStatus::warn, "the caching allocator did not keep the freed block (PYTORCH_CUDA_ALLOC_CONF?)", data};
  if (emptied.reserved > before.reserved)
    return {CheckStatus::warn, "empty_cache kept " + mib(emptied.reserved - before.reserved) + " reserved", data};
  return {CheckStatus::pass,
          "256 MiB allocated, freed into the cache (reserved " + mib(freed.reserved) + "), empty_cache returned it (" +
              mib(emptied.reserved) + " reserved)",
          data};
}

bool works_after(const torch::Device& d) {
  auto a = torch::ones({512, 512}, torch::TensorOptions().device(d));
  return a.mm(a).sum().item<double>() == 512.0 * 512.0 * 512.0;
}

CheckResult oom_recovery(const CheckContext& c) {
  int idx = c.device.index();
  auto info = cuda_device_info(idx);
  int64_t total = info ? info->total_bytes : 0;
  bool caught = false;
  int64_t filled = 0;
  std::string what;
  if (c.full && total > 0) {
    // Fill the device in 1 GiB blocks until the allocator gives up, as a real job would.
    std::vector<torch::Tensor> blocks;
    try {
      for (int64_t i = 0; i < total / (1024 * kMiB) + 8; ++i) {
        blocks.push_back(torch::empty({256 * kMiB}, torch::TensorOptions().device(c.device)));
        filled += 1024 * kMiB;
      }
    } catch (const c10::OutOfMemoryError& e) {
      caught = true;
      what = e.what();
    }
  } else {
    // One request larger than the device: refused without disturbing anything else.
    int64_t ask = total > 0 ? 2 * total : int64_t{1} << 50;
    try {
      auto t = torch::empty({ask / 4}, torch::TensorOptions().device(c.device));
    } catch (const c10::OutOfMemoryError& e) {
      caught = true;
      what = e.what();
    }
  }
  cuda_empty_cache();
  bool ok_after = works_after(c.device);
  auto stats = cuda_allocator_stats(idx);
  nlohmann::json data = {{"caught", caught}, {"filled_bytes", filled}, {"works_after", ok_after},
                         {"reserved_after", stats ? stats->reserved : -1}};
  if (!ok_after) return {CheckStatus::fail, "after the out-of-memory error the device no longer computes correctly", data};
  if (!caught) return {CheckStatus::warn, "no out-of-memory error was raised (unified memory or oversubscription?)", data};
  return {CheckStatus::pass,
          std::string(c.full ? "filled " + mib(filled) + " until out of memory" : "asked for twice the device memory") +
              "; the error was caught, the cache emptied, and the device computes correctly afterwards",
          data};
}

}  // namespace

void add_memory_checks(std::vector<Check>& out) {
  out.push_back({"allocator", "caching allocator: allocated/reserved, empty_cache",
                 [](const CheckContext& c) { return cuda_only(c, "host memory has no caching allocator to check"); },
                 allocator});
  out.push_back({"oom-recovery", "out-of-memory caught and recovered from",
                 [](const CheckContext& c) {
                   return cuda_only(c, "running out of host memory ends in the kernel's OOM killer, not a recoverable error");
                 },
                 oom_recovery});
}

}  // namespace dlready
