// A data-parallel session on c10d: TCPStore rendezvous, a Gloo (CPU) or NCCL (CUDA) process group,
// and the trainer's hooks on top of it (parameter broadcast, bucketed gradient averaging, metric
// sums), each collective bounded by the timeout.
#pragma once
#include <torch/torch.h>

#include <chrono>
#include <memory>
#include <string>

#include "launch/dist_env.hpp"
#include "torch_runtime/collectives.hpp"

namespace dlready {

class DataParallelSession {
 public:
  struct Started {
    std::unique_ptr<DataParallelSession> session;
    std::string error;  // names the address, the port or the peer and suggests the next step
  };
  static Started start(const DistConfig& cfg, const torch::Device& device, std::chrono::seconds timeout);
  ~DataParallelSession();
  DataParallelSession(const DataParallelSession&) = delete;
  DataParallelSession& operator=(const DataParallelSession&) = delete;

  const DataParallel& hooks() const { return hooks_; }
  const std::string& backend() const { return backend_; }

 private:
  DataParallelSession() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  DataParallel hooks_;
  std::string backend_;
};

// Gradients are all-reduced in buckets of at most this many bytes (one bucket for SimpleNet).
inline constexpr int64_t kBucketBytes = 25 << 20;

// Splits tensors (in order) into consecutive buckets of at most `cap` bytes each (a tensor larger
// than cap is a bucket of its own). Returns the index ranges [first, last).
std::vector<std::pair<size_t, size_t>> bucket_ranges(const std::vector<torch::Tensor>& tensors, int64_t cap);

}  // namespace dlready
