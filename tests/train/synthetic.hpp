// A small, seeded, learnable MNIST-format dataset for training tests: each class lights up its
// own band of pixels on top of noise.
#pragma once
#include <cstdint>
#include <random>
#include <string>

#include "data/idx.hpp"

namespace dlready::test {

inline IdxArray synthetic_images(uint32_t n, uint32_t seed, std::vector<uint8_t>& labels_out) {
  IdxArray a;
  a.dims = {n, 28, 28};
  a.data.resize(size_t{n} * 784);
  std::mt19937 rng(seed);
  labels_out.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    uint8_t label = static_cast<uint8_t>(rng() % 10);
    labels_out[i] = label;
    for (uint32_t p = 0; p < 784; ++p) {
      int v = static_cast<int>(rng() % 64);
      if (p / 28 >= label * 2u + 4 && p / 28 < label * 2u + 7) v += 160;  // the class's rows
      a.data[size_t{i} * 784 + p] = static_cast<uint8_t>(v);
    }
  }
  return a;
}

inline MnistDataset synthetic_dataset(uint32_t n_train, uint32_t n_test, uint32_t seed = 1) {
  MnistDataset ds;
  std::vector<uint8_t> l;
  ds.train.images = synthetic_images(n_train, seed, l);
  ds.train.labels.dims = {n_train};
  ds.train.labels.data = l;
  ds.test.images = synthetic_images(n_test, seed + 1000, l);
  ds.test.labels.dims = {n_test};
  ds.test.labels.data = l;
  ds.directory = "(synthetic)";
  return ds;
}

inline std::string idx_bytes(const IdxArray& a) {
  std::string out("\0\0\x08", 3);
  out += static_cast<char>(a.dims.size());
  for (uint32_t d : a.dims) out += std::string{char(d >> 24), char(d >> 16), char(d >> 8), char(d)};
  out.append(reinterpret_cast<const char*>(a.data.data()), a.data.size());
  return out;
}

}  // namespace dlready::test
