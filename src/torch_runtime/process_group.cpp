#include "torch_runtime/process_group.hpp"

#include <stdexcept>

// Gloo types appear in ProcessGroupGloo's declaration only behind pointers and standard
// containers, so Debian's gloo headers declare the same class layout the wheel compiled; the
// wheel's gloo code itself is linked into libtorch_cpu, and libgloo is never linked here.
#define USE_C10D_GLOO 1
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>


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

void shutdown_group(const c10::intrusive_ptr<c10d::Backend>& group) {
  if (group) group->shutdown();
}

}  // namespace dlready
