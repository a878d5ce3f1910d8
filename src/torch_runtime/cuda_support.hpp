// Every CUDA-specific LibTorch call the LibTorch commands make, in one place: the APIs that moved
// between 2.x releases (allocator stats, TF32 switches) are adapted here and nowhere else. The
// device's and the allocator's come from the CUDA half (cuda_support.cpp), linked into the module
// that runs CUDA work; the CPU module (and a LibTorch without CUDA headers) has cuda_absent.cpp's,
// which say "unknown" / do nothing. synchronize, set_tf32 and pinned_memory_available go through
// libtorch_cpu and are in both (device_choice.cpp).
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <optional>
#include <string>

namespace dlready {

struct CudaDeviceInfo {
  std::string name;
  int major = 0, minor = 0;
  int64_t total_bytes = 0;
  int sm_count = 0;
};
std::optional<CudaDeviceInfo> cuda_device_info(int index);

struct AllocatorStats {
  int64_t allocated = 0, reserved = 0, peak_allocated = 0;  // bytes, this device
  int64_t num_ooms = 0;
};
std::optional<AllocatorStats> cuda_allocator_stats(int index);
void cuda_reset_peak(int index);
void cuda_empty_cache();

// Waits for all work on the device (no-op on the CPU).
void synchronize(const torch::Device& device);

// fp32 matmuls on CUDA: true lets cuBLAS use TF32 Tensor Cores ("high"), false forbids it.
void set_tf32(bool allowed);

// Pinned (page-locked) host memory needs a CUDA driver; false where none is usable.
bool pinned_memory_available();

}  // namespace dlready
