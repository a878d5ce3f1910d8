#include "train/resume.hpp"

#include "core/json_text.hpp"
#include "train/checkpoint.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include "os/posix_fs.hpp"
#include "core/text.hpp"

namespace dlready {
namespace {

Status check_identity(const nlohmann::json& meta, const nlohmann::json& identity, int world) {
  const nlohmann::json run = meta.contains("run") ? meta["run"] : nlohmann::json::object();
  int saved = 1;
  if (run.is_object() && run.contains("world_size")) {
    if (!run["world_size"].is_number_integer()) return Status::failure("cannot resume: malformed run identity");
    saved = run["world_size"].get<int>();
  }
  if (saved != world)
    return Status::failure("cannot resume: the checkpoint was made by " + std::to_string(saved) +
                           " rank(s), this run has " + std::to_string(world) + "; resume with the same world size");
  for (auto it = identity.begin(); it != identity.end(); ++it) {
    if (it.key() == "world_size") continue;
    auto saved = run.is_object() ? run.value(it.key(), nlohmann::json()) : nlohmann::json();
    if (saved != it.value())
      return Status::failure("cannot resume: the checkpoint was made with " + it.key() + "=" +
                             (meta.contains("run") ? json_text(saved) : "?") + ", this run has " + json_text(it.value()));
  }
  return {};
}

// [[end_step, loss], ...]: steps 1..steps_per_epoch, rising; finite losses.
bool is_loss_curve(const nlohmann::json& a, int64_t steps_per_epoch) {
  if (!a.is_array()) return false;
  int64_t last = 0;
  for (const auto& p : a) {
    if (!p.is_array() || p.size() != 2 || !p[0].is_number_integer() || !p[1].is_number()) return false;
    auto step = p[0].get<int64_t>();
    if (step <= last || step > steps_per_epoch || !std::isfinite(p[1].get<double>())) return false;
    last = step;
  }
  return true;
}

// The run position and history: integers in range, finite times, history records of numbers.
Status check_run_state(const nlohmann::json& meta, int64_t steps_per_epoch) {
  auto integer_in = [&](const char* key, int64_t lo, int64_t hi) -> Status {
    if (!meta.contains(key) || !meta[key].is_number_integer() || meta[key].get<int64_t>() < lo ||
        meta[key].get<int64_t>() > hi)
      return Status::failure("'" + std::string(key) + "' is missing or out of range " + std::to_string(lo) + ".." +
                             std::to_string(hi));
    return {};
  };
  if (auto st = integer_in("epoch", 0, 100000); !st) return st;
  if (auto st = integer_in("step_in_epoch", 0, std::max<int64_t>(steps_per_epoch - 1, 0)); !st) return st;
  if (auto st = integer_in("global_step", 0, int64_t{1} << 50); !st) return st;
  if (!meta.contains("epoch_seconds") || !meta["epoch_seconds"].is_number() ||
      !std::isfinite(meta["epoch_seconds"].get<double>()) || meta["epoch_seconds"].get<double>() < 0)
    return Status::failure("'epoch_seconds' is missing or not a finite time");
  if (!meta.contains("history") || !meta["history"].is_array())
    return Status::failure("'history' is missing or not a list");
  for (const auto& h : meta["history"]) {
    if (!h.is_object()) return Status::failure("a 'history' record is not an object");
    for (const auto& [k, v] : h.items()) {
      if (k == "loss_curve") {
        if (!is_loss_curve(v, steps_per_epoch)) return Status::failure("a history record's 'loss_curve' is malformed");
      } else if (!v.is_number() || !std::isfinite(v.get<double>())) {
        return Status::failure("history field '" + k + "' is not a finite number");
      }
    }
  }
  if (meta.contains("loss_curve") && !is_loss_curve(meta["loss_curve"], steps_per_epoch))
    return Status::failure("'loss_curve' is malformed");
  return {};
}

// Each of the model's parameters exactly once, and nothing the run does not know.
Status check_tensor_names(const NamedTensors& saved, const RunState& state) {
  for (const auto& [pname, p] : state.params) {
    bool found = false;
    for (const auto& [name, t] : saved) found |= name == pname;
    if (!found) return Status::failure("parameter '" + pname + "' is missing");
  }
  auto known = state.optim.state();
  for (const auto& [name, t] : saved) {
    bool ok = name == "run/loss_sum" || name == "run/correct" || name.rfind("amp/", 0) == 0;
    for (const auto& [pname, p] : state.params) ok |= name == pname;
    for (const auto& [oname, o] : known) ok |= name == oname;
    if (!ok) return Status::failure("unexpected tensor '" + name + "' (made with another model or optimizer?)");
  }
  return {};
}

// The checkpoint's tensors into the parameters, the optimizer, the scaler and the counters.
void load_tensors(const NamedTensors& saved, bool leader, const torch::Device& device, RunState& state) {
  torch::NoGradGuard ng;
  NamedTensors opt_state;
  for (const auto& [name, t] : saved) {
    bool is_param = false;
    for (auto& [pname, p] : state.params) {
      if (pname != name) continue;
      if (!p.sizes().equals(t.sizes())) throw std::runtime_error("parameter '" + name + "' has another shape");
      p.copy_(t);
      is_param = true;
    }
    if (name.rfind("amp/", 0) == 0) {
      if (state.scaler) state.scaler->load_state({{name, t.to(device)}});
    } else if (name == "run/loss_sum") {
      if (leader) state.loss_sum.copy_(t);
    } else if (name == "run/correct") {
      if (leader) state.correct.copy_(t);
    } else if (!is_param) {
      opt_state.emplace_back(name, t.to(device));
    }
  }
  state.optim.load_state(opt_state);
}

}  // namespace

std::string checkpoint_path(const TrainOptions& o) { return o.out + "/checkpoint.dlr"; }

Status reserve_checkpoint_space(const std::string& out, int64_t parameter_floats) {
  // Weights, the optimizer's state (at most two buffers per weight: Adam) and the header; written
  // beside the last checkpoint, then renamed: twice that.
  const off_t bytes = static_cast<off_t>(2 * (3 * parameter_floats * 4 + (256 << 10)));
  std::string probe = out + "/.dlready-space-check";
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return Status::failure("--out " + out + ": cannot write there (" + std::strerror(errno) + ")");
  int rc = ::posix_fallocate(fd, 0, bytes);
  ::close(fd);
  ::unlink(probe.c_str());
  if (rc != 0)
    return Status::failure("--out " + out + ": no room for a checkpoint (" + human_bytes(static_cast<unsigned long long>(bytes)) +
                           " needed: " + std::strerror(rc) + "); free space there or choose another --out");
  return {};
}

Status prepare_output(const TrainOptions& o) {
  if (auto st = make_directories(o.out); !st) return Status::failure("--out " + o.out + ": " + st.error());
  if (::access(o.out.c_str(), W_OK | X_OK) != 0)
    return Status::failure("--out " + o.out + ": cannot write there (" + std::strerror(errno) + ")");
  for (const char* name : {"checkpoint.dlr", "metrics.jsonl", "curves.svg", "confusion.svg", "audit.jsonl"}) {
    std::string p = o.out + "/" + name;
    struct stat st {};
    if (::stat(p.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
      return Status::failure("--out " + o.out + ": " + p + " exists and is not a regular file");
  }
  // A quick run must not replace a long one that happens to share the (default) run directory.
  if (!o.resume && !o.overwrite && ::access(checkpoint_path(o).c_str(), F_OK) == 0)
    return Status::failure("--out " + o.out + " already holds a run (" + checkpoint_path(o) +
                           "): continue it with --resume, replace it with --overwrite, or choose another --out");
  return {};
}

TrainOptions continue_after_restart(const TrainOptions& o, const std::map<std::string, std::string>& env) {
  auto it = env.find("TORCHELASTIC_RESTART_COUNT");
  if (o.resume || it == env.end()) return o;
  auto restarts = parse_int(it->second);  // "00" is 0; anything but a number is no restart
  if (!restarts || *restarts <= 0) return o;
  if (::access(checkpoint_path(o).c_str(), F_OK) != 0) return o;  // the failed attempt saved nothing
  TrainOptions resumed = o;
  resumed.resume = true;
  resumed.overwrite = false;  // it would throw away what the failed attempt saved
  resumed.init.clear();       // the checkpoint already started from it
  return resumed;
}

nlohmann::json run_identity(const TrainOptions& o, int64_t train_size, int world) {
  nlohmann::json id = {{"model", to_string(o.model)}, {"optimizer", to_string(o.optimizer)}, {"lr", o.lr},
                       {"momentum", o.momentum},       {"batch_size", o.batch_size},          {"seed", o.seed},
                       {"train_size", train_size}};
  if (world > 1) id["world_size"] = world;
  return id;
}

Status resume_run(const TrainOptions& o, const nlohmann::json& identity, int world, bool leader,
                  const torch::Device& device, int64_t steps_per_epoch, RunState& state, SealingKey* key) {
  auto ld = load_checkpoint(checkpoint_path(o), key);
  if (!ld.checkpoint) return Status::failure("cannot resume: " + ld.error);
  const auto& meta = ld.checkpoint->meta;
  if (!meta.is_object()) return Status::failure("cannot resume: " + checkpoint_path(o) + ": malformed run state");
  if (auto st = check_identity(meta, identity, world); !st) return st;
  if (auto st = check_run_state(meta, steps_per_epoch); !st)
    return Status::failure("cannot resume: " + checkpoint_path(o) + ": " + st.error());
  if (auto st = check_tensor_names(ld.checkpoint->tensors, state); !st)
    return Status::failure("cannot resume: " + checkpoint_path(o) + ": " + st.error());
  try {
    load_tensors(ld.checkpoint->tensors, leader, device, state);
  } catch (const std::exception& e) {
    return Status::failure("cannot resume from " + checkpoint_path(o) + ": " + e.what());
  }
  state.start_epoch = meta.value("epoch", 0);
  state.start_step = meta.value("step_in_epoch", int64_t{0});
  state.global_step = meta.value("global_step", int64_t{0});
  state.carried_seconds = meta.value("epoch_seconds", 0.0);
  if (meta.contains("threads") && meta["threads"].is_number_integer()) state.saved_threads = meta["threads"].get<int>();
  state.carried_curve = loss_curve_from_json(meta.value("loss_curve", nlohmann::json::array()));
  for (const auto& h : meta.value("history", nlohmann::json::array())) state.history.push_back(epoch_metrics_from_json(h));
  state.resumed = true;
  return {};
}

Status save_run(const std::string& path, const nlohmann::json& identity, const RunState& state,
                const RunPosition& at, const torch::Tensor& loss_total, const torch::Tensor& correct_total,
                SealingKey* key) {
  Checkpoint ck;
  ck.meta = {{"epoch", at.epoch},
             {"step_in_epoch", at.step_in_epoch},
             {"global_step", state.global_step},
             {"epoch_seconds", at.epoch_seconds},
             {"run", identity},
             // Not part of the identity (a resume may change it), but a sum over another number of
             // threads rounds differently: resume warns when it changes.
             {"threads", at::get_num_threads()},
             {"history", nlohmann::json::array()}};
  for (const auto& h : state.history) ck.meta["history"].push_back(to_json(h));
  ck.meta["loss_curve"] = nlohmann::json::array();
  for (const auto& p : at.loss_curve) ck.meta["loss_curve"].push_back({p.end_step, p.loss});
  ck.tensors = state.params;
  for (auto& s : state.optim.state()) ck.tensors.push_back(s);
  if (state.scaler)
    for (auto& s : state.scaler->state()) ck.tensors.push_back(s);
  ck.tensors.emplace_back("run/loss_sum", loss_total);
  ck.tensors.emplace_back("run/correct", correct_total);
  return save_checkpoint(path, ck, key);
}

}  // namespace dlready
