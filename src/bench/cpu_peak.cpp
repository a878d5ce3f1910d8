#include "bench/cpu_peak.hpp"

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

namespace dlready {
namespace {

constexpr int kChains = 12;  // enough independent accumulators to cover FMA latency x pipes
constexpr long kIters = 20'000'000;  // ~0.1 s per thread

// The inner loops are fully unrolled so the accumulators live in registers, not memory.
// Each kernel returns a value derived from the accumulators so the compiler cannot drop the work.
__attribute__((target("avx512f"))) float fma_avx512(long iters) {
  __m512 acc[kChains];
  for (int k = 0; k < kChains; ++k) acc[k] = _mm512_set1_ps(0.001f * static_cast<float>(k));
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (long i = 0; i < iters; ++i)
#pragma GCC unroll 16
    for (int k = 0; k < kChains; ++k) acc[k] = _mm512_fmadd_ps(acc[k], a, b);
  __m512 s = acc[0];
  for (int k = 1; k < kChains; ++k) s = _mm512_add_ps(s, acc[k]);
  alignas(64) float out[16];
  _mm512_store_ps(out, s);
  float r = 0;
  for (float x : out) r += x;
  return r;
}

__attribute__((target("avx2,fma"))) float fma_avx2(long iters) {
  __m256 acc[kChains];
  for (int k = 0; k < kChains; ++k) acc[k] = _mm256_set1_ps(0.001f * static_cast<float>(k));
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (long i = 0; i < iters; ++i)
#pragma GCC unroll 16
    for (int k = 0; k < kChains; ++k) acc[k] = _mm256_fmadd_ps(acc[k], a, b);
  alignas(32) float out[8];
  __m256 s = acc[0];
  for (int k = 1; k < kChains; ++k) s = _mm256_add_ps(s, acc[k]);
  _mm256_store_ps(out, s);
  float r = 0;
  for (float x : out) r += x;
  return r;
}

float fma_scalar(long iters) {
  float acc[kChains];
  for (int k = 0; k < kChains; ++k) acc[k] = 0.001f * static_cast<float>(k);
  for (long i = 0; i < iters; ++i)
#pragma GCC unroll 16
    for (int k = 0; k < kChains; ++k) acc[k] = __builtin_fmaf(acc[k], 0.999999f, 1e-7f);
  float r = 0;
  for (float x : acc) r += x;
  return r;
}

// Wall time of `threads` threads running the kernel at once, best of a few rounds.
template <class Kernel>
double best_seconds(Kernel kernel, int threads, long iters) {
  double best = 1e30;
  for (int round = 0; round < 3; ++round) {
    std::vector<std::thread> pool;
    std::vector<float> sink(static_cast<size_t>(threads));
    auto t0 = std::chrono::steady_clock::now();
    for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { sink[static_cast<size_t>(t)] = kernel(iters); });
    for (auto& th : pool) th.join();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    volatile float keep = sink[0];
    (void)keep;
    best = std::min(best, s);
  }
  return best;
}

}  // namespace

CpuPeak measure_cpu_peak_fp32(int threads) {
  CpuPeak p;
  p.threads = std::max(1, threads);
  int lanes = 1;
  double s = 0;
  long iters = kIters;
  if (__builtin_cpu_supports("avx512f")) {
    p.isa = "avx512f", lanes = 16;
    s = best_seconds(fma_avx512, p.threads, iters);
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    p.isa = "avx2+fma", lanes = 8;
    s = best_seconds(fma_avx2, p.threads, iters);
  } else {
    p.isa = "scalar", iters /= 8;
    s = best_seconds(fma_scalar, p.threads, iters);
  }
  double flops = 2.0 * kChains * lanes * static_cast<double>(iters) * p.threads;
  p.gflops = flops / s / 1e9;
  return p;
}

}  // namespace dlready
