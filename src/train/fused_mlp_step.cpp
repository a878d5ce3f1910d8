#include "train/fused_mlp_step.hpp"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>

namespace dlready {

std::optional<FusedMlpStep> FusedMlpStep::bind(const NamedTensors& params) {
  FusedMlpStep s;
  auto find = [&](const char* name, torch::Tensor& t, size_t& at) {
    for (size_t i = 0; i < params.size(); ++i)
      if (params[i].first == name) {
        t = params[i].second;
        at = i;
        return true;
      }
    return false;
  };
  if (params.size() != 4 || !find("fc1.weight", s.w1_, s.at_w1_) || !find("fc1.bias", s.b1_, s.at_b1_) ||
      !find("fc2.weight", s.w2_, s.at_w2_) || !find("fc2.bias", s.b2_, s.at_b2_))
    return std::nullopt;
  s.one_ = torch::ones({}, s.w1_.options());
  return s;
}

namespace {

// Cross-entropy over a small CPU batch of logits in one pass over its B x C values: the mean loss,
// its gradient (softmax - one-hot) / B and the correct predictions — what log_softmax, nll_loss,
// their two backwards and argmax.eq.sum compute, without their seven dispatches and allocations
// (~15 us of a 0.5 ms step on two cores). nullopt when a label is out of range: ATen's ops then
// run and say so.
struct CrossEntropyTail {
  torch::Tensor loss, dz, correct;
};
std::optional<CrossEntropyTail> cpu_cross_entropy(const torch::Tensor& z, const torch::Tensor& y) {
  const int64_t batch = z.size(0), classes = z.size(1);
  const auto* logits = z.data_ptr<float>();
  const auto* labels = y.data_ptr<int64_t>();
  for (int64_t b = 0; b < batch; ++b)
    if (labels[b] < 0 || labels[b] >= classes) return std::nullopt;
  CrossEntropyTail t{torch::empty({}, torch::kFloat), torch::empty({batch, classes}, torch::kFloat),
                     torch::empty({}, torch::kLong)};
  auto* dz = t.dz.data_ptr<float>();
  double loss = 0;
  int64_t correct = 0;
  const float inv_batch = 1.0f / static_cast<float>(batch);
  for (int64_t b = 0; b < batch; ++b) {
    const float* row = logits + b * classes;
    float* grad = dz + b * classes;
    int64_t best = 0;
    for (int64_t c = 1; c < classes; ++c)
      if (row[c] > row[best]) best = c;  // the first maximum, as argmax
    float sum = 0;
    for (int64_t c = 0; c < classes; ++c) sum += (grad[c] = std::exp(row[c] - row[best]));
    const float log_sum = std::log(sum);
    for (int64_t c = 0; c < classes; ++c) grad[c] = (grad[c] / sum - (c == labels[b] ? 1.0f : 0.0f)) * inv_batch;
    loss += static_cast<double>(log_sum - (row[labels[b]] - row[best]));
    correct += best == labels[b];
  }
  t.loss.fill_(loss / static_cast<double>(batch));
  t.correct.fill_(correct);
  return t;
}

// dh^T x, the first layer's weight gradient (256 x 784 from a K of only 64): on the CPU each
// thread computes its own block of columns with a single-threaded GEMM (MKL inside a parallel
// region), which measured 167 us against MKL's own two-thread split's 186 here; the same sums, so
// the same bits.
torch::Tensor first_weight_gradient(const torch::Tensor& dh, const torch::Tensor& x) {
  const int64_t cols = x.size(1);
  const int64_t parts = std::min<int64_t>(at::get_num_threads(), cols / 64);
  if (!x.is_cpu() || parts < 2 || at::in_parallel_region()) return dh.t().mm(x);
  auto out = torch::empty({dh.size(1), cols}, x.options());
  at::parallel_for(0, parts, 1, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const int64_t c0 = cols * p / parts, c1 = cols * (p + 1) / parts;
      auto block = out.narrow(1, c0, c1 - c0);
      at::mm_out(block, dh.t(), x.narrow(1, c0, c1 - c0));
    }
  });
  return out;
}

}  // namespace

std::pair<torch::Tensor, torch::Tensor> FusedMlpStep::run(const torch::Tensor& x, const torch::Tensor& y,
                                                          std::vector<torch::Tensor>& grads) const {
  torch::NoGradGuard ng;
  auto h = at::addmm(b1_, x, w1_.t()).relu_();
  auto z = at::addmm(b2_, h, w2_.t());
  std::optional<CrossEntropyTail> tail;
  if (z.is_cpu() && z.scalar_type() == torch::kFloat && z.is_contiguous() && y.scalar_type() == torch::kLong &&
      y.is_contiguous())
    tail = cpu_cross_entropy(z, y);
  if (!tail) {
    auto logp = z.log_softmax(1);
    auto total = torch::full({}, static_cast<double>(x.size(0)), logp.options());
    auto loss = at::nll_loss(logp, y);
    auto dlogp = at::nll_loss_backward(one_, logp, y, {}, at::Reduction::Mean, -100, total);
    tail = CrossEntropyTail{loss, at::_log_softmax_backward_data(dlogp, logp, 1, logp.scalar_type()), z.argmax(1).eq(y).sum()};
  }
  const auto& dz = tail->dz;
  auto dh = at::threshold_backward(dz.mm(w2_), h, 0);
  grads.assign(4, torch::Tensor());
  grads[at_w1_] = first_weight_gradient(dh, x);
  grads[at_b1_] = dh.sum(0);
  grads[at_w2_] = dz.t().mm(h);
  grads[at_b2_] = dz.sum(0);
  return {tail->loss, tail->correct};
}

}  // namespace dlready
