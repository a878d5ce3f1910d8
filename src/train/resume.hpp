// Resume and save: a run's checkpoint (<out>/checkpoint.dlr) holds the parameters, the optimizer
// and loss-scaler state, the epoch's counters so far, the position, the history and the run's
// identity. A resumed run refuses a checkpoint made with other settings or another world size.
#pragma once
#include <nlohmann/json.hpp>
#include <map>
#include <string>

#include "core/status.hpp"
#include "module_api/options.hpp"
#include "secure/secret_key.hpp"
#include "train/run_state.hpp"

namespace dlready {

std::string checkpoint_path(const TrainOptions& o);

// Creates <out> and checks up front that the run's files can be written there: <out> a writable
// directory, and checkpoint.dlr, metrics.jsonl, curves.svg absent or regular files.
Status prepare_output(const TrainOptions& o);
// Started again by `dlready launch --max-restarts` or torchrun (TORCHELASTIC_RESTART_COUNT above 0)
// with a checkpoint in <out>: the options continue it (as --resume) instead of refusing the run
// directory the failed attempt left. Otherwise `o` as given.
[[nodiscard]] TrainOptions continue_after_restart(const TrainOptions& o, const std::map<std::string, std::string>& env);
// A full disk is found before the first epoch, not after it: room for one checkpoint of a model of
// `parameter_floats` floats is taken in <out> and given back.
Status reserve_checkpoint_space(const std::string& out, int64_t parameter_floats);

// The settings a resumed run must share with the checkpoint (model, optimizer, lr, batch, seed, ...).
nlohmann::json run_identity(const TrainOptions& o, int64_t train_size, int world);

// Loads <out>/checkpoint.dlr into `state`. The counters of a mid-epoch checkpoint are the sums over
// all ranks: only the leader carries them on, the others start from zero, so the epoch's global
// metrics come out as in an uninterrupted run.
// Every field of the checkpoint's run state is checked for its type and range, and every tensor
// against the model's parameters and the optimizer's state, before anything is used.
// `key`: the checkpoint is sealed with it (nullptr: plaintext).
Status resume_run(const TrainOptions& o, const nlohmann::json& identity, int world, bool leader,
                  const torch::Device& device, int64_t steps_per_epoch, RunState& state, SealingKey* key);

// Where a checkpoint is taken: the epoch it belongs to, the steps done in it, its time so far.
struct RunPosition {
  int epoch = 0;
  int64_t step_in_epoch = 0;
  double epoch_seconds = 0;
  std::vector<LossPoint> loss_curve;  // the epoch's curve so far (mid-epoch)
};

// Writes the checkpoint atomically; loss_total/correct_total are the epoch's counters of every rank.
Status save_run(const std::string& path, const nlohmann::json& identity, const RunState& state,
                const RunPosition& at, const torch::Tensor& loss_total, const torch::Tensor& correct_total,
                SealingKey* key);

}  // namespace dlready
