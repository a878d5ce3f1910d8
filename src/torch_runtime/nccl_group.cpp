// The CUDA half of process_group.hpp: NCCL, with the nccl.h of the nvidia-nccl wheel beside torch
// (cmake/torch_layers.cmake); cuda_absent.cpp has the CPU module's.
#include "torch_runtime/process_group.hpp"

#include <stdexcept>

#if DLREADY_HAVE_NCCL
#define USE_C10D_NCCL 1
#include <c10/cuda/CUDAFunctions.h>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

namespace dlready {

bool nccl_available() { return DLREADY_HAVE_NCCL != 0; }

c10::intrusive_ptr<c10d::Backend> make_nccl_group(const c10::intrusive_ptr<c10d::Store>& store, int rank, int world,
                                                  int device_index, std::chrono::milliseconds timeout) {
#if DLREADY_HAVE_NCCL
  c10::cuda::set_device(static_cast<c10::DeviceIndex>(device_index));
  auto opts = c10d::ProcessGroupNCCL::Options::create();
  opts->timeout = timeout;
  auto pg = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, world, opts);
  pg->setBoundDeviceId(c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(device_index)));
  return pg;
#else
  (void)store, (void)rank, (void)world, (void)device_index, (void)timeout;
  throw std::runtime_error("this dlready was built without NCCL headers (nccl.h from the nvidia-nccl wheel)");
#endif
}

}  // namespace dlready
