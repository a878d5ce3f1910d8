#include "train/trainer.hpp"

#include <chrono>
#include <cmath>
#include <random>

#include "core/posix_fs.hpp"
#include "train/amp.hpp"
#include "train/checkpoint.hpp"
#include "train/cuda_graph_step.hpp"
#include "train/model.hpp"
#include "verify/cuda_support.hpp"

namespace dlready {

TensorData to_tensors(const MnistDataset& ds, int limit_train, const torch::Device& device) {
  auto images = [&](const IdxArray& a, int64_t n) {
    int64_t features = static_cast<int64_t>(a.dims[1]) * a.dims[2];
    return torch::from_blob(const_cast<uint8_t*>(a.data.data()), {n, features}, torch::kUInt8)
        .to(device, true)
        .clone();
  };
  auto labels = [&](const IdxArray& a, int64_t n) {
    return torch::from_blob(const_cast<uint8_t*>(a.data.data()), {n}, torch::kUInt8)
        .to(device, torch::kLong);
  };
  int64_t n_train = static_cast<int64_t>(ds.train.size());
  if (limit_train > 0 && limit_train < n_train) n_train = limit_train;
  int64_t n_test = static_cast<int64_t>(ds.test.size());
  return {images(ds.train.images, n_train), labels(ds.train.labels, n_train),
          images(ds.test.images, n_test), labels(ds.test.labels, n_test)};
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
  for (size_t i = 0; i < per_rank; ++i)
    shard.push_back(perm[(i * w + static_cast<size_t>(rank)) % n]);
  return shard;
}

namespace {

using Clock = std::chrono::steady_clock;

// One training step of SimpleNet written out by hand: the forward pass, the exact backward ops
// autograd would run, and the fused Adam update — about a third of the ATen calls of the autograd
// loop, which is what bounds a batch-64 step on a CPU.
struct FusedMlpStep {
  torch::Tensor w1, b1, w2, b2;
  torch::Tensor one;  // grad of the mean loss
  explicit FusedMlpStep(const NamedTensors& p)
      : w1(p[0].second),
        b1(p[1].second),
        w2(p[2].second),
        b2(p[3].second),
        one(torch::ones({}, p[0].second.options())) {}
  // Returns the loss (0-dim) and the number of correct predictions; fills grads.
  std::pair<torch::Tensor, torch::Tensor> run(const torch::Tensor& x, const torch::Tensor& y,
                                              std::vector<torch::Tensor>& grads) {
    auto h = at::addmm(b1, x, w1.t()).relu_();
    auto z = at::addmm(b2, h, w2.t());
    auto logp = z.log_softmax(1);
    auto total = torch::full({}, static_cast<double>(x.size(0)), logp.options());
    auto loss = at::nll_loss(logp, y);
    auto dlogp = at::nll_loss_backward(one, logp, y, {}, at::Reduction::Mean, -100, total);
    auto dz = at::_log_softmax_backward_data(dlogp, logp, 1, logp.scalar_type());
    auto dh = at::threshold_backward(dz.mm(w2), h, 0);
    grads = {dh.t().mm(x), dh.sum(0), dz.t().mm(h), dz.sum(0)};
    return {loss, z.argmax(1).eq(y).sum()};
  }
};

std::string checkpoint_path(const TrainOptions& o) {
  return o.out + "/checkpoint.dlr";
}

nlohmann::json run_identity(const TrainOptions& o, int64_t train_size) {
  return {{"model", o.model},        {"optimizer", o.optimizer},   {"lr", o.lr},
          {"momentum", o.momentum},  {"batch_size", o.batch_size}, {"seed", o.seed},
          {"train_size", train_size}};
}

}  // namespace

TrainResult train(const TrainOptions& o, const TensorData& data, const torch::Device& device,
                  const TrainHooks& hooks, const DataParallel& dp) {
  TrainResult res;
  const bool leader = dp.rank == 0;  // only rank 0 evaluates and writes files
  auto log = [&](const std::string& s) {
    if (hooks.log) hooks.log(s);
  };
  torch::manual_seed(o.seed);
  std::shared_ptr<torch::nn::Module> module;
  std::function<torch::Tensor(const torch::Tensor&)> forward;
  if (o.model == "cnn") {
    SmallCnn m;
    module = m.ptr();
    forward = [m](const torch::Tensor& x) mutable { return m->forward(x); };
  } else {
    SimpleNet m;
    module = m.ptr();
    forward = [m](const torch::Tensor& x) mutable { return m->forward(x); };
  }
  module->to(device);
  NamedTensors params;
  for (const auto& item : module->named_parameters()) params.emplace_back(item.key(), item.value());
  Optimizer optim(o.optimizer, o.lr, o.momentum, params);
  auto amp = parse_amp(o.amp);
  auto bad_args = [&](const std::string& why) {
    res.status = kTrainBadArgs;
    res.error = why;
    return res;
  };
  if (!amp) return bad_args("--amp " + o.amp + ": use off, bf16 or fp16");
  if (*amp == AmpMode::fp16 && !device.is_cuda())
    return bad_args(
        "--amp fp16 needs a CUDA device (fp16 autocast on the CPU is slow and unscaled); on the "
        "CPU use --amp bf16");
  // The hand-written step is fp32; mixed precision goes through autograd under autocast.
  bool fused =
      o.model == "mlp" && (o.engine == "fused" || (o.engine == "auto" && *amp == AmpMode::off));
  if (o.engine == "fused" && o.model != "mlp")
    return bad_args("--engine fused exists for --model mlp only");
  if (fused && *amp != AmpMode::off)
    return bad_args(
        "--engine fused runs in fp32; with --amp use --engine autograd (the default then)");
  std::optional<LossScaler> scaler;
  if (*amp == AmpMode::fp16) scaler.emplace(device, LossScaler::Options{});

  const int64_t n = data.train_x.size(0);
  const int64_t n_rank = (n + dp.world - 1) / dp.world;  // this rank's samples per epoch
  const int64_t steps_per_epoch = (n_rank + o.batch_size - 1) / o.batch_size;
  res.steps_per_epoch = steps_per_epoch;
  int start_epoch = 0;
  int64_t start_step = 0, global_step = 0;
  double carried_seconds = 0;
  auto loss_sum = torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat).device(device));
  auto correct = torch::zeros({}, loss_sum.options());
  nlohmann::json identity = run_identity(o, n);
  if (dp.world > 1) identity["world_size"] = dp.world;

  if (auto err = make_directories(o.out); !err.empty()) {
    res.status = kTrainFailed;
    res.error = "--out " + o.out + ": " + err;
    return res;
  }
  if (o.resume) {
    auto ld = load_checkpoint(checkpoint_path(o));
    if (!ld.checkpoint) {
      res.status = kTrainFailed;
      res.error = "cannot resume: " + ld.error;
      return res;
    }
    auto& meta = ld.checkpoint->meta;
    if (int saved = meta.contains("run") ? meta["run"].value("world_size", 1) : 1;
        saved != dp.world) {
      res.status = kTrainFailed;
      res.error = "cannot resume: the checkpoint was made by " + std::to_string(saved) +
                  " rank(s), this run has " + std::to_string(dp.world) +
                  "; resume with the same world size";
      return res;
    }
    for (auto it = identity.begin(); it != identity.end(); ++it) {
      if (!meta.contains("run") || meta["run"].value(it.key(), nlohmann::json()) != it.value()) {
        res.status = kTrainFailed;
        res.error =
            "cannot resume: the checkpoint was made with " + it.key() + "=" +
            (meta.contains("run") ? meta["run"].value(it.key(), nlohmann::json()).dump() : "?") +
            ", this run has " + it.value().dump();
        return res;
      }
    }
    try {
      torch::NoGradGuard ng;
      NamedTensors opt_state;
      for (auto& [name, t] : ld.checkpoint->tensors) {
        bool is_param = false;
        for (auto& [pname, p] : params) {
          if (pname != name) continue;
          if (!p.sizes().equals(t.sizes()))
            throw std::runtime_error("parameter '" + name + "' has another shape");
          p.copy_(t);
          is_param = true;
        }
        // Mid-epoch counters are the sums over all ranks: rank 0 carries them on, the others
        // start from zero, so the epoch's global metrics come out as in an uninterrupted run.
        if (name.rfind("amp/", 0) == 0) {
          if (scaler) scaler->load_state({{name, t.to(device)}});
        } else if (name == "run/loss_sum") {
          if (leader) loss_sum.copy_(t);
        } else if (name == "run/correct") {
          if (leader) correct.copy_(t);
        } else if (!is_param)
          opt_state.emplace_back(name, t.to(device));
      }
      optim.load_state(opt_state);
    } catch (const std::exception& e) {
      res.status = kTrainFailed;
      res.error = "cannot resume from " + checkpoint_path(o) + ": " + e.what();
      return res;
    }
    start_epoch = meta.value("epoch", 0);
    start_step = meta.value("step_in_epoch", int64_t{0});
    global_step = meta.value("global_step", int64_t{0});
    carried_seconds = meta.value("epoch_seconds", 0.0);
    for (const auto& h : meta.value("history", nlohmann::json::array()))
      res.history.push_back(epoch_metrics_from_json(h));
    res.resumed = true;
    log("resumed from " + checkpoint_path(o) + " at epoch " + std::to_string(start_epoch + 1) +
        ", step " + std::to_string(start_step));
  }

  // Every rank starts from rank 0's parameters (they match already when seeded alike; this makes
  // it true for any initialisation and any resumed state).
  if (dp.broadcast) {
    std::vector<torch::Tensor> ps;
    for (auto& [name, p] : params) ps.push_back(p.detach());
    torch::NoGradGuard ng;
    dp.broadcast(ps);
  }

  // loss_total/correct_total: the epoch's counters so far, of every rank (see global_counters).
  auto save = [&](int epoch, int64_t step_in_epoch, double epoch_seconds, const torch::Tensor& loss_total,
                  const torch::Tensor& correct_total) -> std::string {
    if (!leader) return "";
    Checkpoint ck;
    ck.meta = {{"epoch", epoch},
               {"step_in_epoch", step_in_epoch},
               {"global_step", global_step},
               {"epoch_seconds", epoch_seconds},
               {"run", identity},
               {"history", nlohmann::json::array()}};
    for (const auto& h : res.history) ck.meta["history"].push_back(to_json(h));
    ck.tensors = params;
    for (auto& s : optim.state()) ck.tensors.push_back(s);
    if (scaler)
      for (auto& s : scaler->state()) ck.tensors.push_back(s);
    ck.tensors.emplace_back("run/loss_sum", loss_total);
    ck.tensors.emplace_back("run/correct", correct_total);
    return save_checkpoint(checkpoint_path(o), ck);
  };

  // A checkpoint is only written of a finite state: the loss so far and every parameter (a step
  // can turn the parameters to inf/NaN before any loss shows it).
  auto params_finite = [&]() {
    torch::NoGradGuard ng;
    for (auto& [name, p] : params)
      if (!torch::isfinite(p).all().item<bool>()) return false;
    return true;
  };
  auto stop_not_finite = [&](int epoch, const std::string& what) {
    res.status = kTrainFailed;
    res.error = what + " in epoch " + std::to_string(epoch + 1) +
                "; stopped. The last good checkpoint is kept: " + checkpoint_path(o) + " (try a smaller --lr)";
  };

  // The epoch's loss and correct counters so far, summed over ranks (a collective: every rank
  // calls it at the same step); this process's own counters when it trains alone.
  auto global_counters = [&]() -> std::pair<torch::Tensor, torch::Tensor> {
    if (!dp.sum) return {loss_sum, correct};
    std::vector<torch::Tensor> c{loss_sum.clone(), correct.clone()};
    dp.sum(c);
    return {c[0], c[1]};
  };

  // A stop request (Ctrl-C) ends the run at a step boundary with a checkpoint. Data-parallel
  // ranks must stop at the same step: each adds its own request to the gradient all-reduce as
  // one more value, and every rank reads the mean at the same steps.
  auto stop_here = [&] { return hooks.stop_requested && hooks.stop_requested(); };
  torch::Tensor stop_flag = dp.average ? torch::zeros({1}, loss_sum.options()) : torch::Tensor();
  constexpr int64_t kStopPollSteps = 8;  // a read of the flag waits for the device: not every step
  auto stop_interrupted = [&](int epoch, int64_t step_in_epoch) {
    res.status = kTrainInterrupted;
    res.error = "stopped by a signal " +
                (step_in_epoch == 0 ? "after epoch " + std::to_string(epoch)
                                    : "at epoch " + std::to_string(epoch + 1) + ", step " +
                                          std::to_string(step_in_epoch) + " of " +
                                          std::to_string(steps_per_epoch)) +
                "; the checkpoint is saved: continue with the same command and --resume";
  };

  std::vector<torch::Tensor> grads;
  FusedMlpStep fused_step(params);
  // Forward and backward of one (micro-)batch: the loss (mean), the correct count, and in `g` the
  // gradients of the mean loss (times the loss scale under fp16).
  auto compute = [&](const torch::Tensor& x, const torch::Tensor& y,
                     std::vector<torch::Tensor>& g) -> std::pair<torch::Tensor, torch::Tensor> {
    if (fused) {
      torch::NoGradGuard ng;
      return fused_step.run(x, y, g);
    }
    for (auto& [name, p] : params) p.mutable_grad() = torch::Tensor();
    torch::Tensor z, loss;
    {
      AutocastGuard autocast(device, *amp);
      z = forward(x);
      loss = torch::nn::functional::cross_entropy(z, y);  // autocast runs it in fp32
    }
    (scaler ? scaler->scale(loss) : loss).backward();
    g.clear();
    for (auto& [name, p] : params) g.push_back(p.grad());
    torch::NoGradGuard ng;
    return {loss.detach(), z.argmax(1).eq(y).sum()};
  };
  // One step of `bs` samples. After an out-of-memory error the cache is emptied and the step is
  // redone as micro-batches whose weighted gradients add up to the full batch's (gradient
  // accumulation); the split then sticks for the rest of the run.
  int micro = 1, told_micro = 1;
  auto run_step = [&](const torch::Tensor& x, const torch::Tensor& y,
                      int64_t bs) -> std::pair<torch::Tensor, torch::Tensor> {
    for (;;) {
      try {
        int64_t chunk = (bs + micro - 1) / micro;
        if (chunk >= bs) {
          if (hooks.before_step) hooks.before_step(global_step, bs);
          return compute(x, y, grads);
        }
        std::vector<torch::Tensor> acc, g;
        torch::Tensor loss_acc, ok_acc;
        for (int64_t b = 0; b < bs; b += chunk) {
          int64_t c = std::min(chunk, bs - b);
          if (hooks.before_step) hooks.before_step(global_step, c);
          auto [l, k] = compute(x.narrow(0, b, c), y.narrow(0, b, c), g);
          torch::NoGradGuard ng;
          double w = static_cast<double>(c) / static_cast<double>(bs);
          if (acc.empty()) {
            for (auto& t : g) acc.push_back(t.mul(w));
            loss_acc = l.mul(w), ok_acc = k;
          } else {
            for (size_t i = 0; i < g.size(); ++i) acc[i].add_(g[i], w);
            loss_acc.add_(l, w), ok_acc.add_(k);
          }
        }
        grads = std::move(acc);
        if (micro != told_micro) {  // said once, when the split is known to fit
          told_micro = micro;
          log("out of memory at a batch of " + std::to_string(bs) +
              ": emptied the cache and redid the step as " + std::to_string(micro) +
              " micro-batches of " + std::to_string(chunk) +
              " with gradient accumulation (the same effective batch of " + std::to_string(bs) +
              "); --batch-size " + std::to_string(chunk) + " fits in memory");
        }
        return {loss_acc, ok_acc};
      } catch (const c10::OutOfMemoryError&) {
        if ((bs + micro - 1) / micro <= 1) throw;  // not even one sample fits
        micro *= 2;
        cuda_empty_cache();
      }
    }
  };
  // --cuda-graphs: the fused fp32 step of one process on CUDA, captured after a few eager steps
  // (cuBLAS and the allocator warm up there) with the batch gathered on the device inside it.
  std::unique_ptr<CudaGraphStep> graph;
  torch::Tensor idx_static;
  int64_t eager_steps = 0;
  constexpr int64_t kEagerBeforeCapture = 3;
  if (o.cuda_graphs) {
    std::string why;
    if (!device.is_cuda())
      why = "needs a CUDA device";
    else if (!fused)
      why = "captures the fused SimpleNet step only (--model mlp, --amp off, engine fused)";
    else if (dp.world > 1)
      why = "is for one process (collectives are not captured)";
    if (why.empty()) {
      graph = std::make_unique<CudaGraphStep>();
      idx_static =
          torch::zeros({o.batch_size}, torch::TensorOptions().dtype(torch::kLong).device(device));
    } else {
      log("--cuda-graphs " + why + ": running eagerly");
    }
  }
  auto t_train = Clock::now();
  for (int epoch = start_epoch; epoch < o.epochs; ++epoch) {
    auto t_epoch = Clock::now();
    if (device.is_cuda()) cuda_reset_peak(device.index());
    auto perm_vec = epoch_permutation(static_cast<size_t>(n), o.seed, epoch);
    if (dp.world > 1) perm_vec = rank_shard(perm_vec, dp.rank, dp.world);
    auto perm = torch::from_blob(perm_vec.data(), {n_rank}, torch::kLong).to(device);
    module->train();
    auto last_progress = Clock::now();
    for (int64_t step = (epoch == start_epoch ? start_step : 0); step < steps_per_epoch; ++step) {
      int64_t begin = step * o.batch_size, bs = std::min<int64_t>(o.batch_size, n_rank - begin);
      bool replayed = false;
      if (graph && bs == o.batch_size && (graph->ready() || eager_steps >= kEagerBeforeCapture)) {
        idx_static.copy_(perm.narrow(0, begin, bs), /*non_blocking=*/true);
        if (!graph->ready()) {
          auto why = graph->capture([&] {
            torch::NoGradGuard ng;
            auto xs = normalize_batch(data.train_x.index_select(0, idx_static));
            auto ys = data.train_y.index_select(0, idx_static);
            std::vector<torch::Tensor> g;
            auto [l, k] = fused_step.run(xs, ys, g);
            optim.step(g);
            loss_sum.add_(l, static_cast<double>(bs));
            correct.add_(k);
          });
          if (why.empty()) {
            res.graph_kernels = graph->kernel_nodes();
            std::string kernels = res.graph_kernels >= 0 ? " (" + std::to_string(res.graph_kernels) + " kernels)" : "";
            log("--cuda-graphs: step captured after " + std::to_string(eager_steps) + " eager steps" +
                kernels + "; replaying it");
          } else {
            log("--cuda-graphs: capture failed (" + why + "): running eagerly");
            graph.reset();
          }
        }
        if (graph) {
          graph->replay();
          replayed = true;
        }
      }
      if (!replayed) {
        ++eager_steps;
        auto idx = perm.narrow(0, begin, bs);
        auto x = normalize_batch(data.train_x.index_select(0, idx));
        auto y = data.train_y.index_select(0, idx);
        auto [loss, ok] = run_step(x, y, bs);
        if (dp.average) {
          stop_flag.fill_(stop_here() ? 1.0 : 0.0);
          grads.push_back(stop_flag);
          dp.average(grads);
          grads.pop_back();
        }
        // fp16: a step whose gradients overflowed is skipped (the scale shrinks instead).
        if (!scaler || scaler->unscale_and_update(grads)) optim.step(grads);
        {
          torch::NoGradGuard ng;
          loss_sum.add_(loss.detach(), static_cast<double>(bs));
          correct.add_(ok);
        }
        if (hooks.step_loss) hooks.step_loss(global_step + 1, loss.item<float>());
      }
      ++global_step;
      double elapsed =
          carried_seconds + std::chrono::duration<double>(Clock::now() - t_epoch).count();
      if (hooks.progress && Clock::now() - last_progress > std::chrono::milliseconds(200)) {
        last_progress = Clock::now();
        double done = static_cast<double>(std::min(n_rank, (step + 1) * o.batch_size) * dp.world);
        hooks.progress(epoch + 1, static_cast<size_t>(done), static_cast<size_t>(n_rank * dp.world),
                       done / std::max(elapsed, 1e-9));
      }
      bool stop = false;
      if (step + 1 < steps_per_epoch) {  // at the epoch's end the stop waits for its checkpoint
        if (!dp.average) stop = stop_here();
        else if (global_step % kStopPollSteps == 0) stop = stop_flag.item<float>() > 0;
      }
      if (stop || (o.checkpoint_every > 0 && global_step % o.checkpoint_every == 0 &&
                   step + 1 < steps_per_epoch)) {
        auto [loss_total, correct_total] = global_counters();
        if (!std::isfinite(loss_total.item<double>()) || !params_finite()) {
          stop_not_finite(epoch, "the training loss or the parameters became inf/NaN by step " +
                                     std::to_string(step + 1));
          return res;
        }
        if (auto err = save(epoch, step + 1, elapsed, loss_total, correct_total); !err.empty())
          log("warning: checkpoint not written: " + err);
        if (stop) {
          stop_interrupted(epoch, step + 1);
          return res;
        }
      }
    }
    // Evaluation.
    EpochMetrics m;
    m.epoch = epoch + 1;
    m.seconds = carried_seconds + std::chrono::duration<double>(Clock::now() - t_epoch).count();
    carried_seconds = 0;
    bool stop_after_epoch = stop_here();
    if (dp.sum) {
      auto want_stop = torch::full({}, stop_after_epoch ? 1.0 : 0.0, loss_sum.options());
      std::vector<torch::Tensor> counters{loss_sum, correct, want_stop};
      dp.sum(counters);
      stop_after_epoch = want_stop.item<double>() > 0;  // all ranks alike
    }
    const double seen = static_cast<double>(n_rank * dp.world);  // padded samples of all ranks
    m.train_loss = loss_sum.item<double>() / seen;
    m.train_acc = correct.item<double>() / seen;
    m.samples_per_s = seen / std::max(m.seconds, 1e-9);
    if (!std::isfinite(m.train_loss) || !params_finite()) {
      stop_not_finite(epoch, std::isfinite(m.train_loss)
                                 ? std::string("the parameters became inf/NaN")
                                 : "the training loss became " + std::to_string(m.train_loss));
      return res;
    }
    if (leader) {
      torch::NoGradGuard ng;
      module->eval();
      auto test_loss = torch::zeros({}, loss_sum.options());
      auto conf = torch::zeros({100}, torch::TensorOptions().dtype(torch::kLong).device(device));
      int64_t nt = data.test_x.size(0);
      for (int64_t b = 0; b < nt; b += 1000) {
        int64_t bs = std::min<int64_t>(1000, nt - b);
        auto z = forward(normalize_batch(data.test_x.narrow(0, b, bs)));
        auto y = data.test_y.narrow(0, b, bs);
        test_loss.add_(torch::nn::functional::cross_entropy(
            z, y, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum)));
        conf.add_(torch::bincount(y * 10 + z.argmax(1), {}, 100));
      }
      auto c = conf.cpu();
      res.confusion.assign(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + 100);
      int64_t right = 0;
      for (int k = 0; k < 10; ++k) right += res.confusion[static_cast<size_t>(k * 11)];
      m.test_acc = static_cast<double>(right) / static_cast<double>(nt);
      m.test_loss = test_loss.item<double>() / static_cast<double>(nt);
    }
    m.rss_mib = peak_rss_mib();
    if (o.empty_cache) cuda_empty_cache();
    if (device.is_cuda()) {
      if (auto st = cuda_allocator_stats(device.index())) {
        m.device_allocated_mib = static_cast<double>(st->allocated) / (1 << 20);
        m.device_reserved_mib = static_cast<double>(st->reserved) / (1 << 20);
        m.device_peak_mib = static_cast<double>(st->peak_allocated) / (1 << 20);
      }
    }
    if (scaler) m.loss_scale = scaler->current_scale(), m.skipped_steps = scaler->skipped_steps();
    res.history.push_back(m);
    loss_sum.zero_();
    correct.zero_();
    char line[400];
    int len = std::snprintf(line, sizeof line,
                            "epoch %d/%d  train loss %.4f acc %.2f%%  test loss %.4f acc %.2f%%  "
                            "%.2fs  %.0f samples/s  RSS %.0f MiB",
                            m.epoch, o.epochs, m.train_loss, 100 * m.train_acc, m.test_loss,
                            100 * m.test_acc, m.seconds, m.samples_per_s, m.rss_mib);
    if (device.is_cuda() && len > 0 && len < static_cast<int>(sizeof line))
      len += std::snprintf(line + len, sizeof line - static_cast<size_t>(len),
                           "  %s alloc %.0f / reserved %.0f / peak %.0f MiB", device.str().c_str(),
                           m.device_allocated_mib, m.device_reserved_mib, m.device_peak_mib);
    if (scaler && len > 0 && len < static_cast<int>(sizeof line))
      std::snprintf(line + len, sizeof line - static_cast<size_t>(len),
                    "  loss scale %g, %lld step(s) skipped", m.loss_scale,
                    static_cast<long long>(m.skipped_steps));
    log(line);
    if (auto err = save(epoch + 1, 0, 0, loss_sum, correct); !err.empty())
      log("warning: checkpoint not written: " + err);
    if (leader) {
      if (auto err = write_metrics_jsonl(o.out + "/metrics.jsonl", res.history); !err.empty())
        log("warning: " + err);
      if (auto err = write_curves_svg(o.out + "/curves.svg", res.history); !err.empty())
        log("warning: " + err);
    }
    if (stop_after_epoch && epoch + 1 < o.epochs) {
      stop_interrupted(epoch + 1, 0);
      return res;
    }
  }
  res.train_seconds = std::chrono::duration<double>(Clock::now() - t_train).count();
  res.micro_batches = micro;
  if (scaler) res.loss_scale = scaler->current_scale(), res.skipped_steps = scaler->skipped_steps();
  if (!res.history.empty()) {
    res.test_acc = res.history.back().test_acc;
    res.test_loss = res.history.back().test_loss;
  }
  return res;
}

}  // namespace dlready
