// The CUDA half of cuda_support.hpp: compiled into libdlready_train.so only where LibTorch has CUDA
// and its headers are here (cmake/torch_layers.cmake); cuda_absent.cpp is the other half's.
#include "torch_runtime/cuda_support.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>

namespace dlready {

std::optional<CudaDeviceInfo> cuda_device_info(int index) {
  if (!torch::cuda::is_available() || index >= static_cast<int>(torch::cuda::device_count())) return std::nullopt;
  const auto* p = at::cuda::getDeviceProperties(static_cast<c10::DeviceIndex>(index));
  return CudaDeviceInfo{p->name, p->major, p->minor, static_cast<int64_t>(p->totalGlobalMem), p->multiProcessorCount};
}

std::optional<AllocatorStats> cuda_allocator_stats(int index) {
  auto s = c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(index));
  constexpr size_t kAggregate = 0;  // StatType::AGGREGATE (its namespace moved in 2.x)
  return AllocatorStats{s.allocated_bytes[kAggregate].current, s.reserved_bytes[kAggregate].current,
                        s.allocated_bytes[kAggregate].peak, s.num_ooms};
}

void cuda_reset_peak(int index) {
  c10::cuda::CUDACachingAllocator::resetPeakStats(static_cast<c10::DeviceIndex>(index));
}

void cuda_empty_cache() {
  if (torch::cuda::is_available()) c10::cuda::CUDACachingAllocator::emptyCache();
}

}  // namespace dlready
