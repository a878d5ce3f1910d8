#include "train/trainer.hpp"

#include <chrono>
#include <cmath>
#include <memory>

#include "os/posix_fs.hpp"
#include "secure/audit_log.hpp"
#include "secure/sealed_file.hpp"
#include "torch_runtime/cuda_support.hpp"
#include "train/epoch_record.hpp"
#include "train/evaluation.hpp"
#include "train/graph_replay.hpp"
#include "train/loss_curve.hpp"
#include "train/model_files.hpp"
#include "train/resume.hpp"
#include "train/run_state.hpp"
#include "train/step_runner.hpp"
#include "train/stop_protocol.hpp"
#include "formats/tensorboard_events.hpp"

namespace dlready {
namespace {

using Clock = std::chrono::steady_clock;

bool uses_fused_step(const TrainOptions& o) {
  // The hand-written step is fp32; mixed precision goes through autograd under autocast.
  return o.model == ModelKind::mlp &&
         (o.engine == Engine::fused || (o.engine == Engine::automatic && o.amp == AmpMode::off));
}

// One run of the loop: the parts of this folder, wired together over one RunState.
class TrainingRun {
 public:
  TrainingRun(const TrainOptions& o, const TensorData& data, const torch::Device& device, const TrainHooks& hooks,
              const DataParallel& dp, ReferenceModel model)
      : o_(o), data_(data), device_(device), hooks_(hooks), dp_(dp), model_(std::move(model)),
        state_(model_.parameters(), Optimizer(o.optimizer, o.lr, o.momentum, model_.parameters()), device),
        n_(data.train_x.size(0)),
        n_rank_((n_ + dp.world - 1) / dp.world),
        steps_per_epoch_((n_rank_ + o.batch_size - 1) / o.batch_size),
        identity_(run_identity(o, n_, dp.world)),
        stop_(hooks.stop_requested, dp, state_.loss_sum.options()),
        curve_(steps_per_epoch_, o.batch_size, n_rank_, device) {
    if (o.amp == AmpMode::fp16) state_.scaler.emplace(device, LossScaler::Options{});
    runner_ = std::make_unique<StepRunner>(uses_fused_step(o), o.amp, device, model_, state_,
                                           StepRunner::Hooks{hooks.log, hooks.before_step});
    res_.steps_per_epoch = steps_per_epoch_;
    if (device.is_cpu() && data.train_x.device().is_cpu() && data.train_x.is_contiguous() && data.train_x.dim() == 2 &&
        data.train_x.scalar_type() == torch::kUInt8 && data.train_y.is_contiguous() &&
        data.train_y.scalar_type() == torch::kLong)
      cpu_batches_.emplace();
  }

  TrainResult run();

 private:
  bool leader() const { return dp_.rank == 0; }
  void log(const std::string& s) const {
    if (hooks_.log) hooks_.log(s);
  }
  // false (and the run failed) when the record could not be written.
  bool audit(const std::string& event, const nlohmann::json& details) {
    if (!hooks_.audit || !leader()) return true;
    if (auto st = hooks_.audit(event, details); !st) {
      fail(ExitCode::failed, st.error() + "; stopped (an audited run does not go on unaudited)");
      return false;
    }
    return true;
  }
  TrainResult fail(ExitCode status, std::string why) {
    res_.status = status;
    res_.error = std::move(why);
    return res_;
  }
  bool start();                   // output directory, resume, the same parameters on every rank
  bool init_from_file();          // --init
  void prepare_graph();           // --cuda-graphs
  bool run_epoch(int epoch);      // false: the run ended (error or stop), res_ says why
  void run_eager_step(const torch::Tensor& perm, int64_t begin, int64_t bs);
  bool checkpoint_mid_epoch(int epoch, int64_t step, double elapsed, bool stop);
  bool end_epoch(int epoch, double seconds);
  bool write_step_losses(int epoch, const std::vector<LossPoint>& points);
  bool save(const RunPosition& at, const torch::Tensor& loss_total, const torch::Tensor& correct_total);
  std::pair<torch::Tensor, torch::Tensor> global_counters();
  void not_finite(int epoch, const std::string& what);
  void report_progress(int epoch, int64_t step, double elapsed, Clock::time_point& last) const;

  const TrainOptions& o_;
  const TensorData& data_;
  torch::Device device_;
  const TrainHooks& hooks_;
  const DataParallel& dp_;
  ReferenceModel model_;
  RunState state_;
  const int64_t n_, n_rank_, steps_per_epoch_;
  nlohmann::json identity_;
  StopProtocol stop_;
  LossCurve curve_;
  // Data parallel: the mean over the ranks of their epoch loss sums, after each step. It rides the
  // gradient all-reduce as one more value (as the stop request does), so the curve rank 0 writes is
  // the whole job's loss, not its own share's, without another collective.
  torch::Tensor mean_loss_sum_;
  const torch::Tensor& curve_sum() const { return dp_.average ? mean_loss_sum_ : state_.loss_sum; }
  std::unique_ptr<StepRunner> runner_;
  std::optional<CpuBatchGatherer> cpu_batches_;  // CPU data in the layout it gathers from
  std::unique_ptr<GraphReplay> graph_;
  std::unique_ptr<TensorBoardRun> tensorboard_;  // --tensorboard, rank 0
  TrainResult res_;
};

bool TrainingRun::start() {
  if (auto st = prepare_output(o_); !st) {
    fail(ExitCode::usage, st.error());
    return false;
  }
  if (leader()) {  // only rank 0 writes checkpoints
    int64_t floats = 0;
    for (const auto& [name, p] : model_.parameters()) floats += p.numel();
    if (auto st = reserve_checkpoint_space(o_.out, floats); !st) {
      fail(ExitCode::usage, st.error());
      return false;
    }
  }
  if (o_.resume) {
    if (auto st = resume_run(o_, identity_, dp_.world, leader(), device_, steps_per_epoch_, state_, hooks_.key); !st) {
      fail(ExitCode::failed, st.error());
      return false;
    }
    if (state_.start_epoch >= o_.epochs) {
      res_.nothing_to_do = true;
      res_.resumed = true;
      res_.history = state_.history;
      if (!res_.history.empty()) res_.test_acc = res_.history.back().test_acc, res_.test_loss = res_.history.back().test_loss;
      return false;
    }
    log("resumed from " + checkpoint_path(o_) + " at epoch " + std::to_string(state_.start_epoch + 1) + ", step " +
        std::to_string(state_.start_step));
    if (state_.saved_threads > 0 && state_.saved_threads != at::get_num_threads())
      log("note: the checkpoint was made with " + std::to_string(state_.saved_threads) + " thread(s), this run uses " +
          std::to_string(at::get_num_threads()) + ": sums round differently, so the result will not be bit-identical "
          "to an uninterrupted run (resume with --threads " + std::to_string(state_.saved_threads) + " for that)");
    if (!audit("resume", {{"checkpoint", checkpoint_path(o_)},
                          {"blake2b", blake2b_file(checkpoint_path(o_)).value_or("")},
                          {"epoch", state_.start_epoch},
                          {"step_in_epoch", state_.start_step},
                          {"global_step", state_.global_step}}))
      return false;
  }
  if (!init_from_file()) return false;
  if (o_.tensorboard && leader()) {
    auto [events, error] = TensorBoardRun::open(o_.out, state_.resumed ? state_.global_step : 0, steps_per_epoch_);
    if (!events) {
      fail(ExitCode::failed, error);
      return false;
    }
    tensorboard_ = std::move(events);
  }
  // Every rank starts from rank 0's parameters (they match already when seeded alike; this makes
  // it true for any initialisation and any resumed state).
  if (dp_.broadcast) {
    std::vector<torch::Tensor> ps;
    for (auto& [name, p] : state_.params) ps.push_back(p.detach());
    torch::NoGradGuard ng;
    dp_.broadcast(ps);
  }
  return true;
}

// --init: the parameters from a state_dict file or a checkpoint; the optimizer starts afresh, as
// after the tutorial's load_state_dict.
bool TrainingRun::init_from_file() {
  if (o_.init.empty() || o_.resume) return true;
  // --init names its file itself: a sealed one is opened with the run's key, a plain one (a
  // torch.save'd state_dict from PyTorch) as it is.
  auto loaded = load_weights(o_.init, sealed_key_id(o_.init) ? hooks_.key : nullptr);
  if (!loaded.weights) {
    fail(is_regular_file(o_.init) ? ExitCode::failed : ExitCode::usage, "--init " + loaded.error);
    return false;
  }
  if (loaded.weights->kind != o_.model) {
    fail(ExitCode::usage, "--init " + o_.init + " holds a " + to_string(loaded.weights->kind) +
                              " model and this run trains --model " + to_string(o_.model) + ": use --model " +
                              to_string(loaded.weights->kind));
    return false;
  }
  load_into(model_, *loaded.weights);
  log("initialised from " + o_.init + " (" + to_string(loaded.weights->format) + ")");
  return true;
}

void TrainingRun::prepare_graph() {
  if (!o_.cuda_graphs) return;
  if (auto why = GraphReplay::unsupported(device_, runner_->fused() != nullptr, dp_.world)) {
    log("note: --cuda-graphs does nothing here (it " + *why + "): running eagerly");
    return;
  }
  graph_ = std::make_unique<GraphReplay>(device_, o_.batch_size, [this](const std::string& s) { log(s); });
}

// TensorBoard's copy of the loss curve; a write that fails ends the run like a checkpoint's.
bool TrainingRun::write_step_losses(int epoch, const std::vector<LossPoint>& points) {
  if (!tensorboard_) return true;
  if (auto st = tensorboard_->step_losses(epoch, points); !st) {
    fail(ExitCode::failed, st.error());
    return false;
  }
  return true;
}

// A checkpoint that cannot be written ends the run (exit 1): it is never reported as written.
bool TrainingRun::save(const RunPosition& at, const torch::Tensor& loss_total, const torch::Tensor& correct_total) {
  if (!leader()) return true;
  if (auto st = save_run(checkpoint_path(o_), identity_, state_, at, loss_total, correct_total, hooks_.key); !st) {
    bool earlier = ::access(checkpoint_path(o_).c_str(), F_OK) == 0;
    fail(ExitCode::failed, "cannot write the checkpoint: " + st.error() + "; stopped" +
                               (earlier ? " (the earlier checkpoint is unchanged)" : " (no checkpoint was kept)"));
    return false;
  }
  return audit("checkpoint", {{"path", checkpoint_path(o_)},
                              {"blake2b", blake2b_file(checkpoint_path(o_)).value_or("")},
                              {"epoch", at.epoch},
                              {"step_in_epoch", at.step_in_epoch},
                              {"global_step", state_.global_step},
                              {"encrypted", hooks_.key != nullptr}});
}

// The epoch's loss and correct counters so far, summed over ranks (a collective: every rank calls
// it at the same step); this process's own counters when it trains alone.
std::pair<torch::Tensor, torch::Tensor> TrainingRun::global_counters() {
  if (!dp_.sum) return {state_.loss_sum, state_.correct};
  std::vector<torch::Tensor> c{state_.loss_sum.clone(), state_.correct.clone()};
  dp_.sum(c);
  return {c[0], c[1]};
}

void TrainingRun::not_finite(int epoch, const std::string& what) {
  std::string kept = path_exists(checkpoint_path(o_)) ? "The last good checkpoint is kept: " + checkpoint_path(o_)
                                                      : "No checkpoint had been written yet";
  fail(ExitCode::failed, what + " in epoch " + std::to_string(epoch + 1) + "; stopped. " + kept + " (try a smaller --lr)");
  res_.stopped_not_finite = true;
}

void TrainingRun::run_eager_step(const torch::Tensor& perm, int64_t begin, int64_t bs) {
  torch::Tensor x, y;
  if (cpu_batches_) {
    const int64_t next = std::min<int64_t>(o_.batch_size, n_rank_ - begin - bs);  // 0 at the epoch's end
    const int64_t* order = perm.data_ptr<int64_t>();
    std::tie(x, y) = cpu_batches_->gather(data_.train_x, data_.train_y, order + begin, bs, order + begin + bs, next);
  } else {
    auto idx = perm.narrow(0, begin, bs);
    x = normalize_batch(data_.train_x.index_select(0, idx));
    y = data_.train_y.index_select(0, idx);
  }
  auto [loss, ok] = runner_->run(x, y, bs);
  auto& grads = runner_->grads();
  if (dp_.average) {
    stop_.append_request(grads);
    {
      torch::NoGradGuard ng;
      mean_loss_sum_ = (state_.loss_sum + loss.detach() * static_cast<double>(bs)).reshape({1});
    }
    grads.push_back(mean_loss_sum_);
    dp_.average(grads);
    mean_loss_sum_ = grads.back().reshape({});  // the all-reduce may hand back a view of its bucket
    grads.pop_back();
    stop_.remove_request(grads);
  }
  // fp16: a step whose gradients overflowed is skipped (the scale shrinks instead), decided on the
  // device: no host sync per step.
  state_.optim.step(grads, state_.scaler ? &state_.scaler->unscale_and_update_on_device(grads) : nullptr);
  {
    torch::NoGradGuard ng;
    state_.loss_sum.add_(loss.detach(), static_cast<double>(bs));
    state_.correct.add_(ok);
  }
  if (hooks_.step_loss) hooks_.step_loss(state_.global_step + 1, loss.item<float>());
}

void TrainingRun::report_progress(int epoch, int64_t step, double elapsed, Clock::time_point& last) const {
  if (!hooks_.progress || Clock::now() - last <= std::chrono::milliseconds(200)) return;
  last = Clock::now();
  double done = static_cast<double>(std::min(n_rank_, (step + 1) * o_.batch_size) * dp_.world);
  hooks_.progress(epoch + 1, static_cast<size_t>(done), static_cast<size_t>(n_rank_ * dp_.world),
                  done / std::max(elapsed, 1e-9));
}

// A checkpoint inside the epoch (--checkpoint-every, or a stop request): of a finite state only.
bool TrainingRun::checkpoint_mid_epoch(int epoch, int64_t step, double elapsed, bool stop) {
  auto [loss_total, correct_total] = global_counters();
  if (!std::isfinite(loss_total.item<double>()) || !state_.params_finite()) {
    not_finite(epoch, "the training loss or the parameters became inf/NaN by step " + std::to_string(step + 1));
    return false;
  }
  auto points = curve_.points();
  if (!write_step_losses(epoch, points) || !save({epoch, step + 1, elapsed, points}, loss_total, correct_total))
    return false;
  if (stop) {
    fail(ExitCode::interrupted, interrupted_message(epoch, step + 1, steps_per_epoch_));
    return false;
  }
  return true;
}

bool TrainingRun::run_epoch(int epoch) {
  auto t_epoch = Clock::now();
  if (device_.is_cuda()) cuda_reset_peak(device_.index());
  auto perm_vec = epoch_permutation(static_cast<size_t>(n_), o_.seed, epoch);
  if (dp_.world > 1) perm_vec = rank_shard(perm_vec, dp_.rank, dp_.world);
  auto perm = torch::from_blob(perm_vec.data(), {n_rank_}, torch::kLong).to(device_);
  model_.module->train();
  auto last_progress = Clock::now();
  const bool resumed_here = epoch == state_.start_epoch;
  // A resumed rank 0 carries the sum of every rank so far (the others start from zero): its share
  // of the mean is that over the world.
  if (dp_.average) mean_loss_sum_ = state_.loss_sum / static_cast<double>(dp_.world);
  curve_.begin(resumed_here ? state_.start_step : 0, curve_sum(),
               resumed_here ? std::move(state_.carried_curve) : std::vector<LossPoint>{});
  for (int64_t step = resumed_here ? state_.start_step : 0; step < steps_per_epoch_; ++step) {
    int64_t begin = step * o_.batch_size, bs = std::min<int64_t>(o_.batch_size, n_rank_ - begin);
    bool replayed = graph_ && graph_->step(perm, begin, bs, data_.train_x, data_.train_y, *runner_->fused(), state_);
    if (!replayed) run_eager_step(perm, begin, bs);
    ++state_.global_step;
    curve_.after_step(step, curve_sum());
    double elapsed = state_.carried_seconds + std::chrono::duration<double>(Clock::now() - t_epoch).count();
    report_progress(epoch, step, elapsed, last_progress);
    if (tensorboard_ && tensorboard_->due() && !write_step_losses(epoch, curve_.points())) return false;
    const bool last_step = step + 1 == steps_per_epoch_;  // at the epoch's end the stop waits for its checkpoint
    bool stop = !last_step && stop_.stop_now(state_.global_step);
    bool periodic = o_.checkpoint_every > 0 && state_.global_step % o_.checkpoint_every == 0 && !last_step;
    if ((stop || periodic) && !checkpoint_mid_epoch(epoch, step, elapsed, stop)) return false;
  }
  double seconds = state_.carried_seconds + std::chrono::duration<double>(Clock::now() - t_epoch).count();
  state_.carried_seconds = 0;
  return end_epoch(epoch, seconds);
}

bool TrainingRun::end_epoch(int epoch, double seconds) {
  EpochMetrics m;
  m.epoch = epoch + 1;
  m.seconds = seconds;
  m.steps = steps_per_epoch_;
  m.loss_curve = curve_.points();
  if (!write_step_losses(epoch, m.loss_curve)) return false;
  bool stop_after = stop_.sum_counters_and_stop(state_.loss_sum, state_.correct);
  const double seen = static_cast<double>(n_rank_ * dp_.world);  // padded samples of all ranks
  m.train_loss = state_.loss_sum.item<double>() / seen;
  m.train_acc = state_.correct.item<double>() / seen;
  m.samples_per_s = seen / std::max(m.seconds, 1e-9);
  if (!std::isfinite(m.train_loss) || !state_.params_finite()) {
    not_finite(epoch, std::isfinite(m.train_loss) ? std::string("the parameters became inf/NaN")
                                                  : "the training loss became " + std::to_string(m.train_loss));
    return false;
  }
  if (leader()) {
    auto e = evaluate(model_, data_.test_x, data_.test_y, device_);
    res_.confusion = std::move(e.confusion);
    m.test_acc = e.test_acc, m.test_loss = e.test_loss;
  }
  m.rss_mib = peak_rss_mib();
  if (o_.empty_cache) cuda_empty_cache();
  record_device_memory(device_, m);
  if (state_.scaler) m.loss_scale = state_.scaler->current_scale(), m.skipped_steps = state_.scaler->skipped_steps();
  state_.history.push_back(m);
  state_.loss_sum.zero_();
  state_.correct.zero_();
  log(epoch_line(m, o_.epochs, device_, state_.scaler.has_value()));
  if (tensorboard_)
    if (auto st = tensorboard_->epoch_end(state_.global_step, m, o_.lr); !st) {
      fail(ExitCode::failed, st.error());
      return false;
    }
  if (!save({epoch + 1, 0, 0}, state_.loss_sum, state_.correct)) return false;
  if (leader())
    if (auto st = write_run_files(o_.out, state_.history, run_info(o_, device_, dp_.world)); !st) {
      fail(ExitCode::failed, st.error());
      return false;
    }
  if (stop_after && epoch + 1 < o_.epochs) {
    fail(ExitCode::interrupted, interrupted_message(epoch + 1, 0, steps_per_epoch_));
    return false;
  }
  return true;
}

TrainResult TrainingRun::run() {
  if (!start()) return res_;
  prepare_graph();
  auto t_train = Clock::now();
  for (int epoch = state_.start_epoch; epoch < o_.epochs; ++epoch)
    if (!run_epoch(epoch)) break;
  res_.history = state_.history;
  res_.resumed = state_.resumed;
  if (res_.status != ExitCode::ok) return res_;
  res_.train_seconds = std::chrono::duration<double>(Clock::now() - t_train).count();
  res_.micro_batches = runner_->micro_batches();
  res_.graph_kernels = graph_ ? graph_->kernels() : 0;
  if (state_.scaler) res_.loss_scale = state_.scaler->current_scale(), res_.skipped_steps = state_.scaler->skipped_steps();
  if (!res_.history.empty()) {
    res_.test_acc = res_.history.back().test_acc;
    res_.test_loss = res_.history.back().test_loss;
  }
  return res_;
}

}  // namespace

Status check_options(const TrainOptions& o) {
  if (o.engine == Engine::fused && o.model != ModelKind::mlp) return Status::failure("--engine fused exists for --model mlp only");
  if (o.engine == Engine::fused && o.amp != AmpMode::off)
    return Status::failure("--engine fused runs in fp32; with --amp use --engine autograd (the default then)");
  return {};
}

TrainResult train(const TrainOptions& o, const TensorData& data, const torch::Device& device, const TrainHooks& hooks,
                  const DataParallel& dp) {
  if (auto st = check_options(o); !st) {
    TrainResult r;
    r.status = ExitCode::usage;
    r.error = st.error();
    return r;
  }
  // One policy for an option that does nothing on the device the run got (a command line written
  // for a GPU machine that lands on a CPU one): one note, and the run goes on without it.
  TrainOptions effective = o;
  auto note = [&](const std::string& s) {
    if (hooks.log) hooks.log("note: " + s);
  };
  if (o.amp == AmpMode::fp16 && !device.is_cuda()) {
    note("--amp fp16 does nothing on the CPU (fp16 autocast there is slow and has no loss scaler): training in fp32; "
         "on the CPU use --amp bf16");
    effective.amp = AmpMode::off;
  }
  if (o.empty_cache && !device.is_cuda()) note("--empty-cache does nothing on the CPU (no CUDA cache): ignored");
  torch::manual_seed(o.seed);
  auto r = TrainingRun(effective, data, device, hooks, dp, make_model(o.model, device)).run();
  r.amp = effective.amp;
  return r;
}

}  // namespace dlready
