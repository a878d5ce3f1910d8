// The audit log of one `dlready train` run (secure/audit_log.hpp), as the first tutorial's safety
// section asks: rank 0 appends to <out>/audit.jsonl (and --audit-log) the run's start (its
// options, the BLAKE2b of every data file, the key id), each resume and checkpoint (with the
// file's hash), and how it ended (finish with the final accuracy, a stop by signal, a NaN stop,
// a failure). The other ranks of a data-parallel run write nothing, so no record is doubled.
#pragma once
#include <map>
#include <memory>
#include <string>

#include "core/status.hpp"
#include "data/idx.hpp"
#include "module_api/options.hpp"
#include "secure/audit_log.hpp"
#include "train/trainer.hpp"

namespace dlready {

class RunAudit {
 public:
  // Opens the logs and writes run_start; on rank != 0 an audit that records nothing.
  struct Opened;
  // `log`: the run's logs, opened (and its options checked) before any work. `digests`: the data
  // files' BLAKE2b as they were read (path -> hex); a file missing from it is read again.
  static Opened start(std::unique_ptr<AuditLog> log, const TrainOptions& o, bool leader, const MnistDataset& ds,
                      const std::map<std::string, std::string>& digests, SealingKey* key, const std::string& device,
                      int world);
  // The hook the trainer calls for resume and checkpoint events.
  std::function<Status(const std::string&, const nlohmann::json&)> hook();
  // finish / stop / nan_stop / fail, from the run's result.
  Status end(const TrainResult& r);

 private:
  std::unique_ptr<AuditLog> log_;  // null on ranks other than 0
};

// The run's key (--key-file / --passphrase-env; null without) and its audit logs (<out>/audit.jsonl
// and --audit-log), opened before the data and the rendezvous: a wrong or unreadable key, a wrong
// signing key or a log that is not a file stops every rank at once, as a usage error.
struct RunSecurity {
  std::unique_ptr<SealingKey> key;
  std::unique_ptr<AuditLog> log;
  std::string error;
};
RunSecurity open_run_security(const TrainOptions& o);

struct RunAudit::Opened {
  std::unique_ptr<RunAudit> audit;
  std::string error;
};

}  // namespace dlready
