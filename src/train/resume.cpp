#include "train/resume.hpp"

#include "train/checkpoint.hpp"

namespace dlready {
namespace {

Status check_identity(const nlohmann::json& meta, const nlohmann::json& identity, int world) {
  const nlohmann::json run = meta.contains("run") ? meta["run"] : nlohmann::json::object();
  if (int saved = run.is_object() ? run.value("world_size", 1) : 1; saved != world)
    return Status::failure("cannot resume: the checkpoint was made by " + std::to_string(saved) +
                           " rank(s), this run has " + std::to_string(world) + "; resume with the same world size");
  for (auto it = identity.begin(); it != identity.end(); ++it) {
    if (it.key() == "world_size") continue;
    auto saved = run.is_object() ? run.value(it.key(), nlohmann::json()) : nlohmann::json();
    if (saved != it.value())
      return Status::failure("cannot resume: the checkpoint was made with " + it.key() + "=" +
                             (meta.contains("run") ? saved.dump() : "?") + ", this run has " + it.value().dump());
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

nlohmann::json run_identity(const TrainOptions& o, int64_t train_size, int world) {
  nlohmann::json id = {{"model", to_string(o.model)}, {"optimizer", to_string(o.optimizer)}, {"lr", o.lr},
                       {"momentum", o.momentum},       {"batch_size", o.batch_size},          {"seed", o.seed},
                       {"train_size", train_size}};
  if (world > 1) id["world_size"] = world;
  return id;
}

Status resume_run(const TrainOptions& o, const nlohmann::json& identity, int world, bool leader,
                  const torch::Device& device, RunState& state) {
  auto ld = load_checkpoint(checkpoint_path(o));
  if (!ld.checkpoint) return Status::failure("cannot resume: " + ld.error);
  const auto& meta = ld.checkpoint->meta;
  if (auto st = check_identity(meta, identity, world); !st) return st;
  try {
    load_tensors(ld.checkpoint->tensors, leader, device, state);
  } catch (const std::exception& e) {
    return Status::failure("cannot resume from " + checkpoint_path(o) + ": " + e.what());
  }
  state.start_epoch = meta.value("epoch", 0);
  state.start_step = meta.value("step_in_epoch", int64_t{0});
  state.global_step = meta.value("global_step", int64_t{0});
  state.carried_seconds = meta.value("epoch_seconds", 0.0);
  for (const auto& h : meta.value("history", nlohmann::json::array())) state.history.push_back(epoch_metrics_from_json(h));
  state.resumed = true;
  return {};
}

Status save_run(const std::string& path, const nlohmann::json& identity, const RunState& state,
                const RunPosition& at, const torch::Tensor& loss_total, const torch::Tensor& correct_total) {
  Checkpoint ck;
  ck.meta = {{"epoch", at.epoch},
             {"step_in_epoch", at.step_in_epoch},
             {"global_step", state.global_step},
             {"epoch_seconds", at.epoch_seconds},
             {"run", identity},
             {"history", nlohmann::json::array()}};
  for (const auto& h : state.history) ck.meta["history"].push_back(to_json(h));
  ck.tensors = state.params;
  for (auto& s : state.optim.state()) ck.tensors.push_back(s);
  if (state.scaler)
    for (auto& s : state.scaler->state()) ck.tensors.push_back(s);
  ck.tensors.emplace_back("run/loss_sum", loss_total);
  ck.tensors.emplace_back("run/correct", correct_total);
  return save_checkpoint(path, ck);
}

}  // namespace dlready
