// dlready_train_main: the module's entry point. Loads the data, picks the device (asking the
// doctor why CUDA is not usable before touching CUDA), trains, prints and writes the summary.
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <iostream>

#include "core/text.hpp"
#include "dist/data_parallel.hpp"
#include "probe/gather.hpp"
#include "train/device_choice.hpp"
#include "train/stop_signal.hpp"
#include "train/trainer.hpp"

namespace dlready {
namespace {

// printf to the human-readable stream, which is null on the quiet ranks of a data-parallel run.
__attribute__((format(printf, 2, 3))) void say(std::FILE* f, const char* fmt, ...) {
  if (!f) return;
  va_list args;
  va_start(args, fmt);
  std::vfprintf(f, fmt, args);
  va_end(args);
}

nlohmann::json summary_json(const TrainOptions& o, const TrainResult& r, const std::string& device, double total_s) {
  nlohmann::json hist = nlohmann::json::array();
  for (const auto& m : r.history) hist.push_back(to_json(m));
  return {{"schema", "dlready.train/1"}, {"device", device}, {"model", o.model}, {"optimizer", o.optimizer},
          {"epochs", o.epochs}, {"batch_size", o.batch_size}, {"test_acc", r.test_acc}, {"test_loss", r.test_loss},
          {"train_seconds", r.train_seconds}, {"total_seconds", total_s}, {"peak_rss_mib", peak_rss_mib()},
          {"confusion", r.confusion}, {"history", hist}, {"out", o.out}, {"resumed", r.resumed},
          {"amp", o.amp}, {"micro_batches", r.micro_batches}, {"loss_scale", r.loss_scale},
          {"skipped_steps", r.skipped_steps}, {"cuda_graphs", o.cuda_graphs}, {"graph_kernels", r.graph_kernels},
          {"steps_per_epoch", r.steps_per_epoch}};
}

}  // namespace
}  // namespace dlready

extern "C" int dlready_train_main(const dlready::TrainOptions* opt) {
  using namespace dlready;
  const TrainOptions& o = *opt;
  auto t0 = std::chrono::steady_clock::now();
  try {
    if (o.threads > 0) at::set_num_threads(o.threads);
    auto ds = load_mnist(o.data);
    if (!ds.dataset) {
      std::fprintf(stderr, "dlready train: %s\n", ds.error.c_str());
      return kTrainFailed;
    }
    auto choice = choose_device(o.device);
    if (!choice.device) {
      std::fprintf(stderr, "dlready train: %s\n", choice.why.c_str());
      return kTrainFailed;
    }
    torch::Device device = *choice.device;

    // Data parallel when the flags or the torchrun/SLURM environment say so.
    auto dc = dist_config(process_environment(), DistFlags{o.rank, o.world_size, -1, o.master_port, o.master_addr});
    if (!dc.config) {
      std::fprintf(stderr, "dlready train: %s\n", dc.error.c_str());
      return kTrainBadArgs;
    }
    const DistConfig& dist = *dc.config;
    if (device.is_cuda() && dist.distributed()) {
      if (dist.local_rank >= static_cast<int>(torch::cuda::device_count())) {
        std::fprintf(stderr, "dlready train: rank %d has local rank %d but this machine has %d CUDA device(s)\n",
                     dist.rank, dist.local_rank, static_cast<int>(torch::cuda::device_count()));
        return kTrainFailed;
      }
      device = torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(dist.local_rank));
    }
    std::unique_ptr<DataParallelSession> session;
    if (dist.wants_process_group()) {
      auto started = DataParallelSession::start(dist, device, std::chrono::seconds(o.dist_timeout));
      if (!started.session) {
        std::fprintf(stderr, "dlready train (rank %d/%d): %s\n", dist.rank, dist.world, started.error.c_str());
        return kTrainFailed;
      }
      session = std::move(started.session);
    }
    DataParallel dp = session ? session->hooks() : DataParallel{};
    const bool leader = dist.rank == 0;

    std::string dev = device.str();
    auto data = to_tensors(*ds.dataset, o.limit_train, device);
    // Only rank 0 speaks (the launcher prefixes every line with the rank anyway); errors always.
    std::FILE* human = !leader ? nullptr : o.json ? stderr : stdout;
    say(human, "dlready train: %s on %s (%s)\n  data %s: %lld train / %lld test, batch %d, %s lr %g, %d epoch(s), %d thread(s)\n",
                 o.model.c_str(), dev.c_str(), choice.why.c_str(), ds.dataset->directory.c_str(),
                 static_cast<long long>(data.train_x.size(0)), static_cast<long long>(data.test_x.size(0)),
                 o.batch_size, o.optimizer.c_str(), o.lr, o.epochs, at::get_num_threads());
    if (session)
      say(human, "  data parallel: %d ranks (%s), %s backend, rendezvous %s:%d, global batch %d\n", dist.world,
                   dist.source.c_str(), session->backend().c_str(), dist.master_addr.c_str(), dist.master_port,
                   o.batch_size * dist.world);
    bool tty = o.progress && human && ::isatty(::fileno(human));
    TrainHooks hooks;
    if (human)
      hooks.log = [&](const std::string& s) {
        say(human, "%s%s\n", tty ? "\r\x1b[K" : "", s.c_str());
        std::fflush(human);
      };
    if (tty)
      hooks.progress = [&](int e, size_t done, size_t total, double sps) {
        say(human, "\r\x1b[K%s", progress_line(e, o.epochs, done, total, sps).c_str());
        std::fflush(human);
      };
    StopOnSignal stop_signal;
    hooks.stop_requested = [&] { return stop_signal.requested(); };
    TrainResult r;
    try {
      r = train(o, data, device, hooks, dp);
    } catch (const std::exception& e) {
      if (!session) throw;
      std::fprintf(stderr, "dlready train (rank %d/%d): %s\n", dist.rank, dist.world, first_line(e.what()).c_str());
      std::_Exit(kTrainFailed);  // a dead peer can leave c10d threads that never join: do not wait for them
    }
    if (r.status != kTrainOk) {
      std::fprintf(stderr, "dlready train%s: %s\n",
                   session ? (" (rank " + std::to_string(dist.rank) + "/" + std::to_string(dist.world) + ")").c_str() : "",
                   r.error.c_str());
      return r.status;
    }
    if (!leader) return kTrainOk;
    double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!r.confusion.empty()) {
      say(human, "\ntest accuracy %.2f%%  (train %.2fs, total %.2fs, peak RSS %.0f MiB)\nconfusion matrix (rows: true class, columns: predicted)\n",
                   100 * r.test_acc, r.train_seconds, total, peak_rss_mib());
      for (int i = 0; i < 10; ++i) {
        say(human, "  %d |", i);
        for (int j = 0; j < 10; ++j) say(human, " %5lld", static_cast<long long>(r.confusion[static_cast<size_t>(i * 10 + j)]));
        say(human, "\n");
      }
    }
    say(human, "wrote %s/checkpoint.dlr, %s/metrics.jsonl, %s/curves.svg\n", o.out.c_str(), o.out.c_str(), o.out.c_str());
    if (o.json) std::cout << summary_json(o, r, dev, total).dump(2) << std::endl;
    return kTrainOk;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dlready train: %s\n", e.what());
    return kTrainFailed;
  }
}
