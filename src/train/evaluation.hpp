// Evaluation on the test set after each epoch, as the tutorials' test loop does it: no gradients,
// the model in eval mode, the summed cross-entropy and the confusion matrix.
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "train/model.hpp"

namespace dlready {

struct Evaluation {
  double test_loss = 0, test_acc = 0;
  std::vector<int64_t> confusion;  // 10x10, row = true class, column = predicted
};

// test_x: uint8 images [N, 784]; test_y: labels [N].

Evaluation evaluate(const ReferenceModel& model, const torch::Tensor& test_x, const torch::Tensor& test_y,
                    const torch::Device& device);

}  // namespace dlready
