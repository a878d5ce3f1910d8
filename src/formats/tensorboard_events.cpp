#include "formats/tensorboard_events.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "core/crc32c.hpp"
#include "core/little_endian.hpp"
#include "os/posix_fs.hpp"

namespace dlready {
namespace {

// Protocol-buffer wire format: a key is (field number << 3 | wire type).
enum WireType : uint8_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7F) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

void put_key(std::string& out, int field, WireType type) { put_varint(out, static_cast<uint64_t>(field) << 3 | type); }

void put_bytes(std::string& out, int field, const std::string& bytes) {
  put_key(out, field, kLengthDelimited);
  put_varint(out, bytes.size());
  out += bytes;
}

// Event { double wall_time = 1; int64 step = 2; oneof what { string file_version = 3;
//         Summary summary = 5; SessionLog session_log = 6; } }
std::string event_header(double wall_time, int64_t step) {
  std::string e;
  put_key(e, 1, kFixed64);
  put_little_endian(e, wall_time);
  put_key(e, 2, kVarint);
  put_varint(e, static_cast<uint64_t>(step));
  return e;
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

std::string encode_scalars_event(double wall_time, int64_t step, const Scalars& values) {
  std::string summary;  // Summary { repeated Value value = 1; }  Value { string tag = 1; float simple_value = 2; }
  for (const auto& [tag, v] : values) {
    std::string value;
    put_bytes(value, 1, tag);
    put_key(value, 2, kFixed32);
    put_little_endian(value, static_cast<float>(v));
    put_bytes(summary, 1, value);
  }
  std::string e = event_header(wall_time, step);
  put_bytes(e, 5, summary);
  return e;
}

std::string encode_file_version_event(double wall_time) {
  std::string e = event_header(wall_time, 0);
  put_bytes(e, 3, "brain.Event:2");
  return e;
}

std::string encode_session_start_event(double wall_time, int64_t step) {
  std::string log;  // SessionLog { SessionStatus status = 1; }  START = 1
  put_key(log, 1, kVarint);
  put_varint(log, 1);
  std::string e = event_header(wall_time, step);
  put_bytes(e, 6, log);
  return e;
}

std::string tfrecord(const std::string& payload) {
  std::string r, length;
  put_little_endian(length, static_cast<uint64_t>(payload.size()));
  r += length;
  put_little_endian(r, masked_crc32c(length));
  r += payload;
  put_little_endian(r, masked_crc32c(payload));
  return r;
}

std::pair<std::unique_ptr<TensorBoardEvents>, std::string> TensorBoardEvents::open(const std::string& dir) {
  if (auto st = make_directories(dir); !st) return {nullptr, "--tensorboard: " + st.error()};
  char host[256] = "localhost";
  (void)::gethostname(host, sizeof host - 1);
  std::string path = dir + "/events.out.tfevents." + std::to_string(static_cast<long long>(now_seconds())) + "." +
                     host + "." + std::to_string(::getpid());
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return {nullptr, "cannot create " + path + ": " + std::strerror(errno)};
  std::unique_ptr<TensorBoardEvents> events(new TensorBoardEvents(fd, path));
  if (auto st = events->append(encode_file_version_event(now_seconds())); !st) return {nullptr, st.error()};
  return {std::move(events), ""};
}

TensorBoardEvents::~TensorBoardEvents() { ::close(fd_); }

Status TensorBoardEvents::scalars(int64_t step, const Scalars& values) {
  return append(encode_scalars_event(now_seconds(), step, values));
}

Status TensorBoardEvents::restart_at(int64_t step) { return append(encode_session_start_event(now_seconds(), step)); }

// One write per record, so a reader never sees half of one unless the disk fills.
Status TensorBoardEvents::append(const std::string& payload) {
  std::string record = tfrecord(payload);
  size_t done = 0;
  while (done < record.size()) {
    ssize_t n = ::write(fd_, record.data() + done, record.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status::failure("cannot write " + path_ + ": " + std::strerror(n < 0 ? errno : ENOSPC));
    done += static_cast<size_t>(n);
  }
  return {};
}

std::pair<std::unique_ptr<TensorBoardRun>, std::string> TensorBoardRun::open(const std::string& out, int64_t resumed_at,
                                                                             int64_t steps_per_epoch) {
  auto [events, error] = TensorBoardEvents::open(out + "/tensorboard");
  if (!events) return {nullptr, error};
  if (resumed_at > 0)
    if (auto st = events->restart_at(resumed_at + 1); !st) return {nullptr, st.error()};
  return {std::unique_ptr<TensorBoardRun>(new TensorBoardRun(std::move(events), resumed_at, steps_per_epoch)), ""};
}

TensorBoardRun::TensorBoardRun(std::unique_ptr<TensorBoardEvents> events, int64_t written, int64_t steps_per_epoch)
    : events_(std::move(events)), written_(written), steps_per_epoch_(steps_per_epoch), last_write_(now_seconds()) {}

Status TensorBoardRun::step_losses(int epoch, const std::vector<LossPoint>& points) {
  last_write_ = now_seconds();
  for (const auto& p : points) {
    int64_t step = static_cast<int64_t>(epoch) * steps_per_epoch_ + p.end_step;
    if (step <= written_) continue;
    if (auto st = events_->scalars(step, {{"loss/train_steps", p.loss}}); !st) return st;
    written_ = step;
  }
  return {};
}

Status TensorBoardRun::epoch_end(int64_t global_step, const EpochMetrics& m, double learning_rate) {
  return events_->scalars(global_step, {{"learning_rate", learning_rate},
                                        {"loss/train", m.train_loss},
                                        {"loss/test", m.test_loss},
                                        {"accuracy/train", 100 * m.train_acc},
                                        {"accuracy/test", 100 * m.test_acc},
                                        {"speed/samples_per_s", m.samples_per_s},
                                        {"time/epoch_seconds", m.seconds}});
}

bool TensorBoardRun::due() const { return now_seconds() - last_write_ >= 5.0; }

}  // namespace dlready
