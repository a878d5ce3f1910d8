#include "train/stop_protocol.hpp"

namespace dlready {

StopProtocol::StopProtocol(std::function<bool()> requested, const DataParallel& dp,
                           const torch::TensorOptions& counters)
    : requested_(std::move(requested)), dp_(dp) {
  if (dp_.average) flag_ = torch::zeros({1}, counters);
}

void StopProtocol::append_request(std::vector<torch::Tensor>& grads) {
  flag_.fill_(requested() ? 1.0 : 0.0);
  grads.push_back(flag_);
}

// The all-reduce may hand back new tensors (views of its bucket) rather than write into ours: the
// mean is read from the list, or each rank would go on with its own request and the ranks would
// stop at different steps (a collective mismatch).
void StopProtocol::remove_request(std::vector<torch::Tensor>& grads) {
  flag_.copy_(grads.back());
  grads.pop_back();
}

bool StopProtocol::stop_now(int64_t global_step) {
  if (!dp_.average) return requested();
  return global_step % kPollSteps == 0 && flag_.item<float>() > 0;
}

bool StopProtocol::sum_counters_and_stop(torch::Tensor& loss_sum, torch::Tensor& correct) {
  bool stop = requested();
  if (!dp_.sum) return stop;
  auto want_stop = torch::full({}, stop ? 1.0 : 0.0, loss_sum.options());
  std::vector<torch::Tensor> counters{loss_sum, correct, want_stop};
  dp_.sum(counters);
  return want_stop.item<double>() > 0;  // all ranks alike
}

std::string interrupted_message(int epoch, int64_t step_in_epoch, int64_t steps_per_epoch) {
  std::string where = step_in_epoch == 0 ? "after epoch " + std::to_string(epoch)
                                         : "at epoch " + std::to_string(epoch + 1) + ", step " +
                                               std::to_string(step_in_epoch) + " of " + std::to_string(steps_per_epoch);
  return "stopped by a signal " + where + "; the checkpoint is saved: continue with the same command and --resume";
}

}  // namespace dlready
