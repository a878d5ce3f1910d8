// The module without CUDA code of its own: libdlready_train_cpu.so, which `dlready` loads for a run
// that cannot use CUDA (--device cpu, or no GPU's device node) so that LibTorch's CUDA half — 0.15 s
// and 350 MB on two cores — never loads; and the only module where LibTorch has no CUDA headers.
// Without libtorch_cuda loaded, LibTorch itself reports no CUDA device, so nothing here is reached
// on a path that chose CUDA; each says what it lacks if it is.
#include <stdexcept>

#include "torch_runtime/cuda_graph.hpp"
#include "torch_runtime/cuda_support.hpp"
#include "torch_runtime/process_group.hpp"

namespace dlready {

std::optional<CudaDeviceInfo> cuda_device_info(int) { return std::nullopt; }
std::optional<AllocatorStats> cuda_allocator_stats(int) { return std::nullopt; }
void cuda_reset_peak(int) {}
void cuda_empty_cache() {}

struct CudaGraphStep::Impl {};
CudaGraphStep::CudaGraphStep() : impl_(std::make_unique<Impl>()) {}
CudaGraphStep::~CudaGraphStep() = default;
bool CudaGraphStep::ready() const { return false; }
int64_t CudaGraphStep::kernel_nodes() const { return -1; }
Status CudaGraphStep::capture(const std::function<void()>&) {
  return Status::failure("this dlready module has no CUDA code (the CPU module, or LibTorch without CUDA headers)");
}
void CudaGraphStep::replay() {}

bool nccl_available() { return false; }
c10::intrusive_ptr<c10d::Backend> make_nccl_group(const c10::intrusive_ptr<c10d::Store>&, int, int, int,
                                                  std::chrono::milliseconds) {
  throw std::runtime_error("this dlready module has no NCCL (the CPU module, or LibTorch without CUDA headers)");
}

}  // namespace dlready
