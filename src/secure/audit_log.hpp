// The audit log the first tutorial's safety section asks for ("keep an audit log of the key
// operations of training", 日志审计：记录训练过程中的关键操作): one JSON record per line in <out>/audit.jsonl (and --audit-log PATH),
// each with the time, user, host, pid, the command line (secret-looking values masked) and the
// event. Records are hash-chained: each holds the BLAKE2b of its own content ("hash") and the hash
// of the record before it ("prev"), and a sequence number; with --audit-sign-key each hash is also
// signed with Ed25519 ("sig"), so an edit needs the signing key, not only a recomputed chain.
// Appends take an exclusive lock on the file, read the last record, write one line with O_APPEND
// and fsync it: concurrent writers (a launcher and its rank 0) interleave whole records, each
// chained to the one before. A record is written whole or not at all (a failed write is cut off
// again), and LOG.head then names the last record (signed like the records), so a log whose end
// was cut off is told apart from a whole one. What no log can tell without a signing key: one
// rewritten from some record on, chain, head file and all, by someone who can write the files.
#pragma once
#include <nlohmann/json.hpp>
#include <memory>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "secure/secret_key.hpp"

namespace dlready {

class AuditLog {
 public:
  struct Opened;
  // `paths`: the logs to append to (the same records to each). `sign_key_file`: an Ed25519 secret
  // key from `dlready keygen --sign` ("" = unsigned). `command`: the command line as given.
  static Opened open(std::vector<std::string> paths, const std::string& sign_key_file,
                     const std::vector<std::string>& command);
  // Appends {"event": event, "details": details, ...} to every log; fails naming the log.
  Status append(const std::string& event, const nlohmann::json& details);

 private:
  AuditLog() = default;
  Status append_to(const std::string& path, const std::string& event, const nlohmann::json& details);
  Status write_head(const std::string& path, uint64_t seq, const std::string& hash) const;
  std::vector<std::string> paths_;
  std::unique_ptr<SecretBytes> sign_key_;
  nlohmann::json who_;  // user, host, pid, command
};

struct AuditLog::Opened {
  std::unique_ptr<AuditLog> log;
  std::string error;
};

// `dlready audit verify`: the first record that was edited, deleted, inserted, reordered or cut
// off (or is unsigned / badly signed when a public key is given).
struct AuditVerdict {
  bool intact = false;
  bool unreadable = false;   // the log (or the public key) could not be read: no verdict on it (exit 2)
  size_t records = 0;        // records read
  size_t first_bad = 0;      // 1-based line of the first problem (0: none, or the file itself)
  std::string problem;       // what is wrong there
  std::vector<std::string> notes;  // not errors: runs without an end record (killed, still running)
  std::string last_hash;     // the last record's hash
};
AuditVerdict verify_audit_log(const std::string& path, const std::string& public_key_file);
// The same over a log's bytes (the fuzz target); `public_key`: 32 bytes, or nullptr for no signatures.
AuditVerdict verify_audit_bytes(std::string_view log, const unsigned char* public_key);

// The command line with the values of options and KEY=VALUE words whose names look secret (token,
// key, secret, password, passphrase, credential) replaced by "***". Paths of key files are kept:
// a path is not a secret (the key is never on the command line).
std::vector<std::string> mask_command_line(const std::vector<std::string>& argv);

// This process's command line, from /proc/self/cmdline.
std::vector<std::string> own_command_line();

// BLAKE2b-256 of a file's bytes as hex, read in pieces; nullopt when it cannot be read.
std::optional<std::string> blake2b_file(const std::string& path);
// BLAKE2b-256 of bytes already in memory (a file as it was read), as hex.
std::string blake2b_hex(std::string_view bytes);

}  // namespace dlready
