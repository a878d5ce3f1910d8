#include "train/model.hpp"

#include <stdexcept>

namespace dlready {

SimpleNetImpl::SimpleNetImpl() {
  fc1 = register_module("fc1", torch::nn::Linear(784, 256));
  fc2 = register_module("fc2", torch::nn::Linear(256, 10));
}

torch::Tensor SimpleNetImpl::forward(const torch::Tensor& x) { return fc2(torch::relu(fc1(x))); }

SmallCnnImpl::SmallCnnImpl() {
  conv1 = register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 32, 3)));
  conv2 = register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(32, 64, 3)));
  fc1 = register_module("fc1", torch::nn::Linear(64 * 5 * 5, 128));
  fc2 = register_module("fc2", torch::nn::Linear(128, 10));
}

torch::Tensor SmallCnnImpl::forward(const torch::Tensor& x) {
  auto h = x.view({-1, 1, 28, 28});
  h = torch::max_pool2d(torch::relu(conv1(h)), 2);  // 26 -> 13
  h = torch::max_pool2d(torch::relu(conv2(h)), 2);  // 11 -> 5
  return fc2(torch::relu(fc1(h.flatten(1))));
}

NamedTensors ReferenceModel::parameters() const {
  NamedTensors params;
  for (const auto& item : module->named_parameters()) params.emplace_back(item.key(), item.value());
  return params;
}

ReferenceModel make_model(ModelKind kind, const torch::Device& device) {
  ReferenceModel m;
  if (kind == ModelKind::cnn) {
    SmallCnn net;
    m.module = net.ptr();
    m.forward = [net](const torch::Tensor& x) mutable { return net->forward(x); };
  } else {
    SimpleNet net;
    m.module = net.ptr();
    m.forward = [net](const torch::Tensor& x) mutable { return net->forward(x); };
  }
  m.module->to(device);
  return m;
}

std::optional<double> linear_step_flops_per_sample(const NamedTensors& params) {
  double flops = 0;
  bool first = true;
  for (const auto& [name, p] : params) {
    if (p.dim() == 1) continue;  // a bias
    if (p.dim() != 2) return std::nullopt;
    double in = static_cast<double>(p.size(1)), out = static_cast<double>(p.size(0));
    flops += 2 * in * out * (first ? 2 : 3);
    first = false;
  }
  if (first) return std::nullopt;
  return flops;
}

Optimizer::Optimizer(OptimizerKind kind, double lr, double momentum, const NamedTensors& params)
    : kind_(kind), lr_(lr), momentum_(momentum) {
  torch::NoGradGuard no_grad;
  for (const auto& [name, p] : params) {
    names_.push_back(name);
    params_.push_back(p);
    if (kind_ == OptimizerKind::adam) {
      exp_avg_.push_back(torch::zeros_like(p));
      exp_avg_sq_.push_back(torch::zeros_like(p));
      // The fused kernel wants a float step counter per parameter, on the parameter's device.
      steps_.push_back(torch::zeros({}, p.options().dtype(torch::kFloat)));
    } else if (momentum_ > 0) {
      momentum_buf_.push_back(torch::zeros_like(p));
    }
  }
}

void Optimizer::step(const std::vector<torch::Tensor>& grads, const torch::Tensor* found_inf) {
  torch::NoGradGuard no_grad;
  if (kind_ == OptimizerKind::adam) {
    // ATen's fused Adam (one kernel per tensor list): same maths as torch.optim.Adam(fused=True),
    // which also bumps the step counters first (the kernel reads them; step 0 would divide by 0)
    // and, given found_inf, leaves everything as it was and takes the bump back.
    at::_foreach_add_(steps_, 1);
    at::_fused_adam_(params_, grads, exp_avg_, exp_avg_sq_, {}, steps_, lr_, 0.9, 0.999, 0.0, 1e-8,
                     /*amsgrad=*/false, /*maximize=*/false, /*grad_scale=*/std::nullopt,
                     found_inf ? std::optional<torch::Tensor>(*found_inf) : std::nullopt);
    if (found_inf) at::_foreach_sub_(steps_, std::vector<torch::Tensor>(steps_.size(), found_inf->reshape({})));
    return;
  }
  if (found_inf) {
    // SGD skipped on the device: each new value chosen against the old by the flag.
    auto skip = found_inf->to(torch::kBool);
    for (size_t i = 0; i < params_.size(); ++i) {
      auto direction = grads[i];
      if (momentum_ > 0) {
        momentum_buf_[i].copy_(torch::where(skip, momentum_buf_[i], momentum_buf_[i] * momentum_ + grads[i]));
        direction = momentum_buf_[i];
      }
      params_[i].copy_(torch::where(skip, params_[i], params_[i] - direction * lr_));
    }
    return;
  }
  for (size_t i = 0; i < params_.size(); ++i) {
    if (momentum_ > 0) {
      momentum_buf_[i].mul_(momentum_).add_(grads[i]);
      params_[i].add_(momentum_buf_[i], -lr_);
    } else {
      params_[i].add_(grads[i], -lr_);
    }
  }
}

NamedTensors Optimizer::state() const {
  NamedTensors out;
  for (size_t i = 0; i < names_.size(); ++i) {
    if (kind_ == OptimizerKind::adam) {
      out.emplace_back("exp_avg/" + names_[i], exp_avg_[i]);
      out.emplace_back("exp_avg_sq/" + names_[i], exp_avg_sq_[i]);
      out.emplace_back("step/" + names_[i], steps_[i]);
    } else if (momentum_ > 0) {
      out.emplace_back("momentum/" + names_[i], momentum_buf_[i]);
    }
  }
  return out;
}

void Optimizer::load_state(const NamedTensors& saved) {
  torch::NoGradGuard no_grad;
  auto mine = state();
  for (auto& [name, t] : mine) {
    const torch::Tensor* found = nullptr;
    for (const auto& [sname, st] : saved)
      if (sname == name) found = &st;
    if (!found) throw std::runtime_error("optimizer state '" + name + "' is missing");
    if (!found->sizes().equals(t.sizes()))
      throw std::runtime_error("optimizer state '" + name + "' has another shape");
    t.copy_(*found);
  }
}

}  // namespace dlready
