#include "train/fused_mlp_step.hpp"

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

std::pair<torch::Tensor, torch::Tensor> FusedMlpStep::run(const torch::Tensor& x, const torch::Tensor& y,
                                                          std::vector<torch::Tensor>& grads) const {
  torch::NoGradGuard ng;
  auto h = at::addmm(b1_, x, w1_.t()).relu_();
  auto z = at::addmm(b2_, h, w2_.t());
  auto logp = z.log_softmax(1);
  auto total = torch::full({}, static_cast<double>(x.size(0)), logp.options());
  auto loss = at::nll_loss(logp, y);
  auto dlogp = at::nll_loss_backward(one_, logp, y, {}, at::Reduction::Mean, -100, total);
  auto dz = at::_log_softmax_backward_data(dlogp, logp, 1, logp.scalar_type());
  auto dh = at::threshold_backward(dz.mm(w2_), h, 0);
  grads.assign(4, torch::Tensor());
  grads[at_w1_] = dh.t().mm(x);
  grads[at_b1_] = dh.sum(0);
  grads[at_w2_] = dz.t().mm(h);
  grads[at_b2_] = dz.sum(0);
  return {loss, z.argmax(1).eq(y).sum()};
}

}  // namespace dlready
