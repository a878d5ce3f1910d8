#include "torch_runtime/process_group.hpp"

#include <stdexcept>

// Gloo types appear in ProcessGroupGloo's declaration only behind pointers and standard
// containers, so Debian's gloo headers declare the same class layout the wheel compiled; the
// wheel's gloo code itself is linked into libtorch_cpu, and libgloo is never linked here.
#define USE_C10D_GLOO 1
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#if DLREADY_HAVE_NCCL
#define USE_C10D_NCCL 1
#include <c10/cuda/CUDAFunctions.h>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

namespace dlready {

c10::intrusive_ptr<c10d::Backend> make_gloo_group(const c10::intrusive_ptr<c10d::Store>& store, int rank, int world,
                                                  std::chrono::milliseconds timeout, const GlooEndpoint& where) {
  auto opts = c10d::ProcessGroupGloo::Options::create(timeout);
  try {
    opts->devices.push_back(where.interface.empty()
                                ? c10d::ProcessGroupGloo::createDeviceForHostname(where.address)
                                : c10d::ProcessGroupGloo::createDeviceForInterface(where.interface));
  } catch (const std::exception&) {  // gloo::EnforceNotMet, not a c10::Error
    if (!where.interface.empty())
      throw std::runtime_error("Gloo cannot use the interface " + where.interface +
                               " (GLOO_SOCKET_IFNAME): is it here and up? `ip -br addr` lists them");
    // Gloo binds to the interface that holds the address; a container or namespace whose loopback
    // is down has none for 127.0.0.1 (seen in the GPU check's rehearsal).
    throw std::runtime_error("Gloo found no network interface with the address " + where.address +
                             " (is it down? `ip link set lo up` for 127.0.0.1; or choose one with GLOO_SOCKET_IFNAME)");
  }
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world, opts);
}

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

void shutdown_group(const c10::intrusive_ptr<c10d::Backend>& group) {
  if (group) group->shutdown();
}

}  // namespace dlready
