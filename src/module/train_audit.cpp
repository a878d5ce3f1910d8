#include "module/train_audit.hpp"

#include "module_api/module_abi.hpp"

namespace dlready {

RunSecurity open_run_security(const TrainOptions& o) {
  RunSecurity s;
  if (KeyChoice choice{o.key_file, o.passphrase_env}; !choice.empty()) {
    auto loaded = SealingKey::load(choice);
    if (!loaded.key) return {nullptr, nullptr, loaded.error};
    s.key = std::move(loaded.key);
  }
  std::vector<std::string> paths{o.out + "/audit.jsonl"};
  if (!o.audit_log.empty()) paths.push_back(o.audit_log);
  auto opened = AuditLog::open(paths, o.audit_sign_key, own_command_line());
  if (!opened.log) return {nullptr, nullptr, opened.error};
  s.log = std::move(opened.log);
  return s;
}

RunAudit::Opened RunAudit::start(std::unique_ptr<AuditLog> log, const TrainOptions& o, bool leader,
                                 const MnistDataset& ds, const std::map<std::string, std::string>& digests,
                                 SealingKey* key, const std::string& device, int world) {
  std::unique_ptr<RunAudit> audit(new RunAudit);
  if (!leader) return {std::move(audit), ""};  // the other ranks write nothing
  audit->log_ = std::move(log);
  nlohmann::json data = nlohmann::json::array();
  for (const MnistSplit* s : {&ds.train, &ds.test})
    for (const std::string* p : {&s->images_path, &s->labels_path}) {
      auto known = digests.find(*p);
      data.push_back({{"path", *p}, {"blake2b", known != digests.end() ? known->second : blake2b_file(*p).value_or("unreadable")}});
    }
  nlohmann::json details = {{"command", "train"}, {"options", to_json(o)}, {"data", data}, {"device", device},
                            {"world_size", world}, {"writer", "rank 0"}};
  if (key) {
    std::string error;
    const unsigned char* k = key->key_for(key->new_file_derivation(), error);
    if (!k) return {nullptr, error};
    details["key_id"] = key_id(k);
  }
  if (auto st = audit->log_->append("run_start", details); !st) return {nullptr, st.error()};
  return {std::move(audit), ""};
}

std::function<Status(const std::string&, const nlohmann::json&)> RunAudit::hook() {
  if (!log_) return nullptr;
  return [this](const std::string& event, const nlohmann::json& details) { return log_->append(event, details); };
}

Status RunAudit::end(const TrainResult& r) {
  if (!log_) return {};
  switch (r.status) {
    case ExitCode::ok: {
      nlohmann::json d = {{"test_acc", r.test_acc}, {"test_loss", r.test_loss}, {"train_seconds", r.train_seconds},
                          {"epochs", r.history.size()}};
      if (r.nothing_to_do) d["nothing_to_do"] = true;
      return log_->append("finish", d);
    }
    case ExitCode::interrupted: return log_->append("stop", {{"reason", "signal"}, {"message", r.error}});
    default:
      return log_->append(r.stopped_not_finite ? "nan_stop" : "fail", {{"exit", to_int(r.status)}, {"error", r.error}});
  }
}

}  // namespace dlready
