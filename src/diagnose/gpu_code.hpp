// What a library's GPU code (the SASS and PTX its fat binaries hold, probe/fatbin_reader) means for
// the GPUs of this machine: whether each can run it, and how — the question
// torch.cuda.get_arch_list() answers only after a successful import.
#pragma once
#include <string>
#include <vector>

#include "facts/facts.hpp"

namespace dlready {

struct GpuCodeOnGpu {
  std::string gpu;   // "cuda:0 NVIDIA H200" or "0000:01:00.0 GeForce RTX 5090"
  std::string arch;  // "sm_90"
  bool runs = false;
  std::string how;   // "SASS sm_90" | "PTX compute_80, JIT-compiled at first use" | "no SASS sm_9x ≤ sm_90, no PTX ≤ compute_90"
};

struct GpuCodeView {
  std::string library;
  std::string owner;    // "torch 2.11.0+cu130" when the library is a PyTorch's; "" otherwise
  std::string summary;  // "SASS sm_75 sm_80 … sm_120, no PTX" (plus compression and a read error)
  std::vector<GpuCodeOnGpu> gpus;
};

// "sm_75 sm_80" from {75, 80}.
std::string arch_text(const std::vector<int>& archs, const char* prefix);
// SASS runs on the same major with minor <= the device's; PTX JIT-compiles for any newer device.
GpuCodeOnGpu gpu_code_on(const GpuCode& code, int major, int minor);
// One view per scanned library (in f.gpu_code's order), each compared with every GPU the facts know the architecture of.
std::vector<GpuCodeView> gpu_code_views(const Facts& f);

}  // namespace dlready
