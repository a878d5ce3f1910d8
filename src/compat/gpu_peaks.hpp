// Datasheet peaks of known NVIDIA GPUs (data/gpu_peaks.tsv, compiled in), for `dlready bench`.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace dlready {

struct GpuPeak {
  std::string match;                             // substring of the CUDA device name
  std::optional<double> fp32, tf32, fp16, bf16;  // dense TFLOP/s; empty = no such path
  std::string source;
};

const std::vector<GpuPeak>& gpu_peaks();
std::optional<GpuPeak> gpu_peak_for(
    const std::string& device_name);  // first row whose match is in the name
std::optional<double> peak_of(const GpuPeak& p,
                              const std::string& dtype);  // "fp32", "tf32", "fp16", "bf16"

}  // namespace dlready
