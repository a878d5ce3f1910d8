// `dlready train --tensorboard`: the run's scalars as a TensorBoard event file, so
// `tensorboard --logdir <out>` shows them. The format is TensorBoard's: TFRecord records (length,
// masked CRC-32C, payload, masked CRC-32C) of `Event` protocol buffers. The few fields written
// (wall_time, step, file_version, summary.value{tag, simple_value}, session_log.status) are
// encoded here: the protobuf library would add a compiler and a runtime to the build for five
// fields, and LibTorch, in the same process, exports protobuf symbols of its own.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/status.hpp"
#include "formats/metrics.hpp"

namespace dlready {

using Scalars = std::vector<std::pair<std::string, double>>;

// One serialized Event (no record framing): what TensorBoard's reader parses.
std::string encode_scalars_event(double wall_time, int64_t step, const Scalars& values);
std::string encode_file_version_event(double wall_time);
std::string encode_session_start_event(double wall_time, int64_t step);
// One TFRecord around a payload.
std::string tfrecord(const std::string& payload);

class TensorBoardEvents {
 public:
  // Creates `dir` and a new events.out.tfevents.<time>.<host>.<pid> file in it (a resumed run adds
  // a file; TensorBoard reads them all).
  static std::pair<std::unique_ptr<TensorBoardEvents>, std::string> open(const std::string& dir);
  ~TensorBoardEvents();
  TensorBoardEvents(const TensorBoardEvents&) = delete;
  TensorBoardEvents& operator=(const TensorBoardEvents&) = delete;

  Status scalars(int64_t step, const Scalars& values);
  // A resumed run: TensorBoard drops what an earlier process wrote at or after `step`.
  Status restart_at(int64_t step);
  const std::string& path() const { return path_; }

 private:
  TensorBoardEvents(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  Status append(const std::string& payload);
  int fd_;
  std::string path_;
};

// What a training run writes: the loss every few steps as it comes (tag loss/train_steps), and
// per epoch loss/train, loss/test, accuracy/train, accuracy/test (percent), speed/samples_per_s,
// time/epoch_seconds; all at the run's global step.
class TensorBoardRun {
 public:
  // <out>/tensorboard; `resumed_at`: the checkpoint's global step of a resumed run, else 0.
  static std::pair<std::unique_ptr<TensorBoardRun>, std::string> open(const std::string& out, int64_t resumed_at,
                                                                      int64_t steps_per_epoch);
  // The points of epoch `epoch` (0-based) not written yet.
  Status step_losses(int epoch, const std::vector<LossPoint>& points);
  Status epoch_end(int64_t global_step, const EpochMetrics& m, double learning_rate);
  // Whether a few seconds passed since the step losses were last written (reading them waits for
  // the device).
  bool due() const;

 private:
  TensorBoardRun(std::unique_ptr<TensorBoardEvents> events, int64_t written, int64_t steps_per_epoch);
  std::unique_ptr<TensorBoardEvents> events_;
  int64_t written_;  // the global step of the last step loss written
  int64_t steps_per_epoch_;
  double last_write_;  // wall-clock seconds
};

}  // namespace dlready
