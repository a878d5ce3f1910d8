#include "torch_runtime/cuda_support.hpp"

#if __has_include(<c10/cuda/CUDACachingAllocator.h>) && __has_include(<cuda_runtime_api.h>)
#define DLREADY_CUDA_HEADERS 1
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#else
#define DLREADY_CUDA_HEADERS 0
#endif

namespace dlready {

std::optional<CudaDeviceInfo> cuda_device_info(int index) {
#if DLREADY_CUDA_HEADERS
  if (!torch::cuda::is_available() || index >= static_cast<int>(torch::cuda::device_count())) return std::nullopt;
  const auto* p = at::cuda::getDeviceProperties(static_cast<c10::DeviceIndex>(index));
  return CudaDeviceInfo{p->name, p->major, p->minor, static_cast<int64_t>(p->totalGlobalMem), p->multiProcessorCount};
#else
  (void)index;
  return std::nullopt;
#endif
}

std::optional<AllocatorStats> cuda_allocator_stats(int index) {
#if DLREADY_CUDA_HEADERS
  auto s = c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(index));
  constexpr size_t kAggregate = 0;  // StatType::AGGREGATE (its namespace moved in 2.x)
  return AllocatorStats{s.allocated_bytes[kAggregate].current, s.reserved_bytes[kAggregate].current,
                        s.allocated_bytes[kAggregate].peak, s.num_ooms};
#else
  (void)index;
  return std::nullopt;
#endif
}

void cuda_reset_peak(int index) {
#if DLREADY_CUDA_HEADERS
  c10::cuda::CUDACachingAllocator::resetPeakStats(static_cast<c10::DeviceIndex>(index));
#else
  (void)index;
#endif
}

void cuda_empty_cache() {
#if DLREADY_CUDA_HEADERS
  if (torch::cuda::is_available()) c10::cuda::CUDACachingAllocator::emptyCache();
#endif
}

void synchronize(const torch::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

void set_tf32(bool allowed) {
  // The matmul-precision switch exists from 1.12 to 2.11 and drives cuBLAS's TF32 use.
  at::globalContext().setFloat32MatmulPrecision(allowed ? "high" : "highest");
}

bool pinned_memory_available() { return torch::cuda::is_available(); }

}  // namespace dlready
