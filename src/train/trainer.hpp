// The training loop of the reference job, usable from tests without the CLI. It strings together
// the parts in this folder: resume/save (resume.hpp), the step (step_runner.hpp, graph_replay.hpp),
// the stop protocol (stop_protocol.hpp), evaluation (evaluation.hpp) and the epoch's record
// (epoch_record.hpp).
#pragma once
#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

#include "core/exit_code.hpp"
#include "core/status.hpp"
#include "module_api/options.hpp"
#include "secure/secret_key.hpp"
#include "torch_runtime/collectives.hpp"
#include "train/batches.hpp"
#include "formats/metrics.hpp"

namespace dlready {

struct TrainResult {
  ExitCode status = ExitCode::ok;
  std::string error;
  std::vector<EpochMetrics> history;
  std::vector<int64_t> confusion;  // 10x10, row = true class, column = predicted
  double test_acc = 0, test_loss = 0, train_seconds = 0;
  bool resumed = false;
  bool nothing_to_do = false;   // --resume of a run that already finished its --epochs
  AmpMode amp = AmpMode::off;   // the precision the run used (--amp fp16 on the CPU runs in fp32)
  bool stopped_not_finite = false;  // the loss or the parameters became inf/NaN
  int micro_batches = 1;        // > 1 after an out-of-memory: steps run as this many micro-batches
  double loss_scale = 0;        // fp16: the final loss scale
  int64_t skipped_steps = 0;    // fp16: steps skipped for inf/NaN gradients
  int64_t steps_per_epoch = 0;  // of this process
  int64_t graph_kernels = 0;    // --cuda-graphs: kernels in the captured step (0: not captured, -1: unknown)
};

struct TrainHooks {
  std::function<void(const std::string&)> log;  // human-readable lines
  std::function<void(int epoch, size_t done, size_t total, double samples_per_s)> progress;
  std::function<void(int64_t step, float loss)> step_loss;  // tests: the loss trajectory (syncs!)
  // Called before each forward pass with the (micro-)batch size about to run. A test seam: it may
  // throw c10::OutOfMemoryError to exercise the recovery at the step boundary.
  std::function<void(int64_t step, int64_t batch)> before_step;
  // Polled between steps: true asks for a checkpoint and a stop (ExitCode::interrupted), e.g. Ctrl-C.
  std::function<bool()> stop_requested;
  // The audit log's events from inside the loop (rank 0): "resume", "checkpoint" with their details.
  // A record that cannot be written stops the run (exit 1): an audited run is never unaudited.
  std::function<Status(const std::string& event, const nlohmann::json& details)> audit;
  // Seals checkpoint.dlr (and reads a sealed one on --resume); nullptr: plaintext checkpoints.
  SealingKey* key = nullptr;
};

// Whether the options can train on `device` (amp/engine/model combinations); a failure says why not.
Status check_options(const TrainOptions& o);

// Data parallel when dp.world > 1 (see distributed/data_parallel.hpp); one process by default.
TrainResult train(const TrainOptions& opt, const TensorData& data, const torch::Device& device, const TrainHooks& hooks,
                  const DataParallel& dp = {});

}  // namespace dlready
