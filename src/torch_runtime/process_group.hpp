// c10d process groups from LibTorch: Gloo on the CPU, NCCL on CUDA. The headers they need are not
// all in the PyPI wheel (see CMakeLists.txt: Debian's gloo headers, the wheel's own nccl.h), so
// this is the only file that includes them; the rest of dlready sees c10d::Backend.
#pragma once
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <string>

namespace dlready {

// Where Gloo listens: a named interface (GLOO_SOCKET_IFNAME), else an address or host name.
struct GlooEndpoint {
  std::string interface;
  std::string address = "127.0.0.1";
};

// Gloo over TCP on `where` (loopback for local ranks). Throws on failure.
c10::intrusive_ptr<c10d::Backend> make_gloo_group(const c10::intrusive_ptr<c10d::Store>& store, int rank, int world,
                                                  std::chrono::milliseconds timeout, const GlooEndpoint& where = {});

// NCCL on CUDA device `device_index` (set as the current device first). Throws on failure,
// including when this build has no NCCL headers (nccl_available() says so in advance).
c10::intrusive_ptr<c10d::Backend> make_nccl_group(const c10::intrusive_ptr<c10d::Store>& store, int rank, int world,
                                                  int device_index, std::chrono::milliseconds timeout);
bool nccl_available();

// Ends a group cleanly (NCCL warns at exit otherwise).
void shutdown_group(const c10::intrusive_ptr<c10d::Backend>& group);

}  // namespace dlready
