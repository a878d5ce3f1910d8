// Options of `dlready train`. Plain data shared by the CLI (no LibTorch) and the LibTorch module.
#pragma once
#include <string>

namespace dlready {

struct TrainOptions {
  std::string data = "/usr/share/datasets/fashion-mnist";
  std::string model = "mlp";       // mlp (the seeds' SimpleNet) | cnn
  std::string optimizer = "adam";  // adam | sgd
  std::string device = "auto";     // auto | cpu | cuda | cuda:N
  std::string engine = "auto";     // auto | fused | autograd (fused: hand-written MLP step)
  std::string out = "runs/latest";  // checkpoints, metrics.jsonl, curves.svg
  int epochs = 5;
  int batch_size = 64;
  double lr = 1e-3;
  double momentum = 0.0;  // SGD only
  unsigned long long seed = 0;
  int threads = 0;  // 0 = LibTorch's default
  int checkpoint_every = 0;  // steps; 0 = once per epoch
  std::string amp = "off";  // off | bf16 | fp16 (fp16: CUDA only, with dynamic loss scaling)
  bool cuda_graphs = false;  // capture the whole step once and replay it (CUDA, fused engine)
  bool empty_cache = false;  // return cached device memory after every epoch
  int limit_train = 0;  // use only the first N training samples (0 = all); for quick runs and tests
  // Data parallel (also from the torchrun / SLURM environment; flags win). -1 / "" = unset.
  int rank = -1, world_size = -1, master_port = -1;
  std::string master_addr;
  int dist_timeout = 60;  // seconds: rendezvous and every collective
  bool resume = false;
  bool json = false;
  bool progress = true;  // progress bar when stdout is a terminal
};

// Exit statuses of dlready train.
inline constexpr int kTrainOk = 0;
inline constexpr int kTrainFailed = 1;      // bad data, bad checkpoint, NaN loss, ...
inline constexpr int kTrainBadArgs = 2;
inline constexpr int kTrainCannotLoad = 3;  // LibTorch or a CUDA library could not be loaded
inline constexpr int kTrainInterrupted = 130;  // stopped by SIGINT/SIGTERM with a checkpoint saved

}  // namespace dlready

// The entry point the LibTorch module exports (looked up with dlsym by `dlready train`).
extern "C" int dlready_train_main(const dlready::TrainOptions* options);
