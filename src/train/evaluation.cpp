#include "train/evaluation.hpp"

#include <cstdio>

#include "train/batches.hpp"

namespace dlready {

Evaluation evaluate(const ReferenceModel& model, const torch::Tensor& test_x, const torch::Tensor& test_y,
                    const torch::Device& device) {
  torch::NoGradGuard ng;
  model.module->eval();
  constexpr int64_t kBatch = 1000;
  auto test_loss = torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat).device(device));
  auto conf = torch::zeros({100}, torch::TensorOptions().dtype(torch::kLong).device(device));
  int64_t n = test_x.size(0);
  for (int64_t b = 0; b < n; b += kBatch) {
    int64_t bs = std::min<int64_t>(kBatch, n - b);
    auto z = model.forward(normalize_batch(test_x.narrow(0, b, bs)));
    auto y = test_y.narrow(0, b, bs);
    test_loss.add_(torch::nn::functional::cross_entropy(
        z, y, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum)));
    conf.add_(torch::bincount(y * 10 + z.argmax(1), {}, 100));
  }
  Evaluation e;
  auto c = conf.cpu();
  e.confusion.assign(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + 100);
  int64_t right = 0;
  for (int k = 0; k < 10; ++k) right += e.confusion[static_cast<size_t>(k * 11)];
  e.test_acc = static_cast<double>(right) / static_cast<double>(n);
  e.test_loss = test_loss.item<double>() / static_cast<double>(n);
  return e;
}

}  // namespace dlready
