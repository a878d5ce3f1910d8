// The shared secret of a multi-node job (`dlready launch --job-token-file FILE`, or the
// DLREADY_JOB_TOKEN variable): every launcher's hello to node 0 carries an HMAC of its fields
// under it, bound to a fresh challenge node 0 sent on that connection, and node 0's verdict
// carries one bound to the node's own nonce, so a program that reaches the launchers' port can
// neither join the job, stop it, nor replay what it overheard. libsodium (HMAC-SHA-256) only.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace dlready {

// A random nonce, 32 hex digits.
std::string new_nonce();

// The message's MAC (hex) under `token`, bound to `nonce`; the message's own "mac" field, if
// any, is not covered.
std::string message_mac(const std::string& token, const std::string& nonce, const nlohmann::json& message);

// Whether `message` carries a valid "mac" for `token` and `nonce` (compared in constant time).
bool message_mac_ok(const std::string& token, const std::string& nonce, const nlohmann::json& message);

struct JobTokenLoad {
  std::optional<std::string> token;  // nullopt: none given
  std::string error;
};
// --job-token-file FILE (its first line, at least 16 characters, the file not readable by others),
// else DLREADY_JOB_TOKEN.
JobTokenLoad load_job_token(const std::string& file);

}  // namespace dlready
