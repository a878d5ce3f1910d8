// dlready_train_main: the module's entry point. Loads the data, picks the device (asking the
// doctor why CUDA is not usable before touching CUDA), trains, prints and writes the summary.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "train/device_choice.hpp"
#include "train/trainer.hpp"

namespace dlready {
namespace {

nlohmann::json summary_json(const TrainOptions& o, const TrainResult& r, const std::string& device, double total_s) {
  nlohmann::json hist = nlohmann::json::array();
  for (const auto& m : r.history) hist.push_back(to_json(m));
  return {{"schema", "dlready.train/1"}, {"device", device}, {"model", o.model}, {"optimizer", o.optimizer},
          {"epochs", o.epochs}, {"batch_size", o.batch_size}, {"test_acc", r.test_acc}, {"test_loss", r.test_loss},
          {"train_seconds", r.train_seconds}, {"total_seconds", total_s}, {"peak_rss_mib", peak_rss_mib()},
          {"confusion", r.confusion}, {"history", hist}, {"out", o.out}, {"resumed", r.resumed}};
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
    std::string dev = device.str();
    auto data = to_tensors(*ds.dataset, o.limit_train, device);
    std::FILE* human = o.json ? stderr : stdout;
    std::fprintf(human, "dlready train: %s on %s (%s)\n  data %s: %lld train / %lld test, batch %d, %s lr %g, %d epoch(s), %d thread(s)\n",
                 o.model.c_str(), dev.c_str(), choice.why.c_str(), ds.dataset->directory.c_str(),
                 static_cast<long long>(data.train_x.size(0)), static_cast<long long>(data.test_x.size(0)),
                 o.batch_size, o.optimizer.c_str(), o.lr, o.epochs, at::get_num_threads());
    bool tty = o.progress && ::isatty(::fileno(human));
    TrainHooks hooks;
    hooks.log = [&](const std::string& s) {
      std::fprintf(human, "%s%s\n", tty ? "\r\x1b[K" : "", s.c_str());
      std::fflush(human);
    };
    if (tty)
      hooks.progress = [&](int e, size_t done, size_t total, double sps) {
        std::fprintf(human, "\r\x1b[K%s", progress_line(e, o.epochs, done, total, sps).c_str());
        std::fflush(human);
      };
    auto r = train(o, data, device, hooks);
    if (r.status != kTrainOk) {
      std::fprintf(stderr, "dlready train: %s\n", r.error.c_str());
      return r.status;
    }
    double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!r.confusion.empty()) {
      std::fprintf(human, "\ntest accuracy %.2f%%  (train %.2fs, total %.2fs, peak RSS %.0f MiB)\nconfusion matrix (rows: true class, columns: predicted)\n",
                   100 * r.test_acc, r.train_seconds, total, peak_rss_mib());
      for (int i = 0; i < 10; ++i) {
        std::fprintf(human, "  %d |", i);
        for (int j = 0; j < 10; ++j) std::fprintf(human, " %5lld", static_cast<long long>(r.confusion[static_cast<size_t>(i * 10 + j)]));
        std::fprintf(human, "\n");
      }
    }
    std::fprintf(human, "wrote %s/checkpoint.dlr, %s/metrics.jsonl, %s/curves.svg\n", o.out.c_str(), o.out.c_str(), o.out.c_str());
    if (o.json) std::cout << summary_json(o, r, dev, total).dump(2) << std::endl;
    return kTrainOk;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dlready train: %s\n", e.what());
    return kTrainFailed;
  }
}
