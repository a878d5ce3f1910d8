// The CPU's fp32 peak, measured: independent FMA chains in registers on every thread, the widest
// vector ISA the CPU has. This is the ceiling a GEMM is compared with on the CPU.
#pragma once
#include <string>

namespace dlready {

struct CpuPeak {
  double gflops = 0;  // fp32, all threads together
  int threads = 0;
  std::string isa;    // avx512f, avx2+fma or scalar
};

CpuPeak measure_cpu_peak_fp32(int threads);

}  // namespace dlready
