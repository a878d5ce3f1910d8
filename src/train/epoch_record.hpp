// The end of an epoch as the user sees it: device memory in the record, the console line, and the
// run's files (metrics.jsonl, curves.svg) rewritten from the history.
#pragma once
#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "module_api/options.hpp"
#include "formats/metrics.hpp"

namespace dlready {

// The CUDA caching allocator's figures at the end of the epoch and its peak during it.
void record_device_memory(const torch::Device& device, EpochMetrics& m);

// "epoch 2/5  train loss 0.3712 acc 86.51%  test loss ...  12.3s  4871 samples/s  RSS 410 MiB"
// (+ device memory on CUDA, + the loss scale under fp16).
std::string epoch_line(const EpochMetrics& m, int epochs, const torch::Device& device, bool loss_scaled);

// "SimpleNet · SGD lr 0.01 momentum 0.9 · batch 64 · cpu · 2 ranks · seed 42": curves.svg's run line.
std::string run_info(const TrainOptions& o, const torch::Device& device, int world);

// Writes <out>/metrics.jsonl and <out>/curves.svg; fails naming the file that could not be written.
Status write_run_files(const std::string& out, const std::vector<EpochMetrics>& history, const std::string& info);

}  // namespace dlready
