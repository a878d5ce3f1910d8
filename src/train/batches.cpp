#include "train/batches.hpp"

#include <random>

namespace dlready {

TensorData to_tensors(const MnistDataset& ds, int limit_train, const torch::Device& device) {
  auto images = [&](const IdxArray& a, int64_t n) {
    int64_t features = static_cast<int64_t>(a.dims[1]) * a.dims[2];
    return torch::from_blob(const_cast<uint8_t*>(a.data.data()), {n, features}, torch::kUInt8)
        .to(device, true)
        .clone();
  };
  auto labels = [&](const IdxArray& a, int64_t n) {
    return torch::from_blob(const_cast<uint8_t*>(a.data.data()), {n}, torch::kUInt8).to(device, torch::kLong);
  };
  int64_t n_train = static_cast<int64_t>(ds.train.size());
  if (limit_train > 0 && limit_train < n_train) n_train = limit_train;
  int64_t n_test = static_cast<int64_t>(ds.test.size());
  return {images(ds.train.images, n_train), labels(ds.train.labels, n_train), images(ds.test.images, n_test),
          labels(ds.test.labels, n_test)};
}

torch::Tensor normalize_batch(const torch::Tensor& x_u8) {
  // (x / 255 - mean) / std, folded into one multiply-add.
  constexpr double kMean = 0.1307, kStd = 0.3081;
  return x_u8.to(torch::kFloat).mul_(1.0 / (255.0 * kStd)).sub_(kMean / kStd);
}

std::vector<int64_t> epoch_permutation(size_t n, unsigned long long seed, int epoch) {
  std::vector<int64_t> p(n);
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<int64_t>(i);
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + static_cast<unsigned long long>(epoch) + 1);
  for (size_t i = n; i > 1; --i) std::swap(p[i - 1], p[rng() % i]);  // Fisher-Yates
  return p;
}

std::vector<int64_t> rank_shard(const std::vector<int64_t>& perm, int rank, int world) {
  size_t n = perm.size(), w = static_cast<size_t>(world);
  size_t per_rank = (n + w - 1) / w;
  std::vector<int64_t> shard;
  shard.reserve(per_rank);
  for (size_t i = 0; i < per_rank; ++i) shard.push_back(perm[(i * w + static_cast<size_t>(rank)) % n]);
  return shard;
}

}  // namespace dlready
