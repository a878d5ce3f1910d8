#include "cli/security_command.hpp"

#include <filesystem>
#include <cstdio>
#include <iostream>
#include <memory>

#include "core/json_text.hpp"
#include "os/atomic_file.hpp"
#include "secure/audit_log.hpp"
#include "secure/sealed_file.hpp"
#include "secure/secret_key.hpp"

namespace dlready {

void add_key_options(CLI::App* cmd, std::string& key_file, std::string& passphrase_env, const std::string& what) {
  auto* kf = cmd->add_option("--key-file", key_file,
                             "Key from dlready keygen (mode 0600) that " + what + " (default: $DLREADY_KEY_FILE)")
                 ->envname("DLREADY_KEY_FILE");
  cmd->add_option("--passphrase-env", passphrase_env,
                  "Name of the environment variable holding a passphrase instead (stretched with Argon2id)")
      ->excludes(kf);
}

void add_audit_options(CLI::App* cmd, std::string& audit_log, std::string& sign_key, const std::string& what) {
  cmd->add_option("--audit-log", audit_log, "Append " + what + " to this audit log");
  cmd->add_option("--audit-sign-key", sign_key, "Sign the audit record with this Ed25519 key (dlready keygen --sign)");
}

void add_security_commands(CLI::App& app, SecurityArgs& a) {
  auto* kg = app.get_subcommand("keygen");
  kg->add_option("--out", a.keygen_out, "The key file to create (never replaces an existing file)")->required();
  kg->add_flag("--sign", a.keygen_sign,
               "An Ed25519 key pair for signing the audit log instead: --out (secret, 0600) and --out.pub");
  auto* rk = app.get_subcommand("rekey");
  rk->add_option("file", a.rekey_file, "A file dlready wrote (sealed, or plain to encrypt it)")->required();
  auto* ok = rk->add_option("--key-file", a.old_key_file, "Its current key (none: the file is not encrypted yet)");
  rk->add_option("--passphrase-env", a.old_passphrase_env, "Variable holding its current passphrase")->excludes(ok);
  auto* nk = rk->add_option("--new-key-file", a.new_key_file, "The key to encrypt it with");
  auto* np = rk->add_option("--new-passphrase-env", a.new_passphrase_env, "Variable holding the new passphrase")->excludes(nk);
  rk->add_flag("--decrypt", a.decrypt, "Write it unencrypted (for PyTorch to read)")->excludes(nk)->excludes(np);
  rk->add_option("--out", a.rekey_out, "Write the result here and leave FILE as it is (default: replace FILE)");
  auto* au = app.get_subcommand("audit");
  au->require_subcommand(1);
  auto* v = au->add_subcommand("verify", "Check an audit log's hash chain (and signatures): exit 0 intact, 1 not");
  v->add_option("log", a.audit_path, "The log (a run's <out>/audit.jsonl, or --audit-log's file)")->required();
  v->add_option("--public-key", a.public_key, "The .pub of dlready keygen --sign: every record must be signed by it");
  v->add_flag("--json", a.json, "Print the verdict as JSON (schema dlready.audit-verify/1)");
}

namespace {

ExitCode keygen(const SecurityArgs& a) {
  // An --out that exists (never replaced) or cannot be a file is the argument's fault: exit 2.
  std::error_code ec;
  const bool taken = std::filesystem::exists(std::filesystem::symlink_status(a.keygen_out, ec)) ||
                     (a.keygen_sign && std::filesystem::exists(std::filesystem::symlink_status(a.keygen_out + ".pub", ec)));
  auto st = a.keygen_sign ? write_new_signing_key(a.keygen_out) : write_new_key_file(a.keygen_out);
  if (!st) {
    std::fprintf(stderr, "dlready keygen: %s\n", st.error().c_str());
    return taken || unusable_output_path(a.keygen_out) ? ExitCode::usage : ExitCode::failed;
  }
  if (a.keygen_sign)
    std::printf("wrote %s (Ed25519 secret key, mode 0600) and %s.pub (its public key): sign with "
                "dlready train --audit-sign-key %s, check with dlready audit verify LOG --public-key %s.pub\n",
                a.keygen_out.c_str(), a.keygen_out.c_str(), a.keygen_out.c_str(), a.keygen_out.c_str());
  else
    std::printf("wrote %s (32 random bytes, mode 0600): encrypt with dlready train --key-file %s. Keep a copy "
                "somewhere safe: without it, what it encrypted cannot be read.\n",
                a.keygen_out.c_str(), a.keygen_out.c_str());
  return ExitCode::ok;
}

// A key from a file or a passphrase variable; nullptr when neither is named; error on failure.
std::unique_ptr<SealingKey> key_of(const std::string& file, const std::string& env, std::string& error) {
  KeyChoice choice{file, env};
  if (choice.empty()) return nullptr;
  auto loaded = SealingKey::load(choice);
  error = loaded.error;
  return std::move(loaded.key);
}

ExitCode rekey(const SecurityArgs& a) {
  std::string error;
  auto old_key = key_of(a.old_key_file, a.old_passphrase_env, error);
  if (!error.empty()) {
    std::fprintf(stderr, "dlready rekey: %s\n", error.c_str());
    return ExitCode::usage;
  }
  auto new_key = key_of(a.new_key_file, a.new_passphrase_env, error);
  if (!error.empty()) {
    std::fprintf(stderr, "dlready rekey: %s\n", error.c_str());
    return ExitCode::usage;
  }
  if (!new_key && !a.decrypt) {
    std::fprintf(stderr, "dlready rekey: say what to write: --new-key-file KEY, --new-passphrase-env VAR, or --decrypt\n");
    return ExitCode::usage;
  }
  if (auto st = rekey_file(a.rekey_file, old_key.get(), new_key.get(), a.rekey_out); !st) {
    std::fprintf(stderr, "dlready rekey: %s\n", st.error().c_str());
    return ExitCode::failed;
  }
  const std::string& written = a.rekey_out.empty() ? a.rekey_file : a.rekey_out;
  const std::string kept = a.rekey_out.empty() ? "" : " (" + a.rekey_file + " left as it was)";
  if (new_key)
    std::printf("%s: encrypted with %s (key id %s)%s\n", written.c_str(), new_key->description().c_str(),
                sealed_key_id(written).value_or("?").c_str(), kept.c_str());
  else if (a.rekey_out.empty())
    std::printf("%s: replaced by its unencrypted content (the sealed file is gone; --out PLAIN keeps it)\n",
                written.c_str());
  else
    std::printf("%s: written unencrypted%s\n", written.c_str(), kept.c_str());
  return ExitCode::ok;
}

ExitCode audit_verify(const SecurityArgs& a) {
  auto v = verify_audit_log(a.audit_path, a.public_key);
  const bool unreadable = v.unreadable;
  if (a.json) {
    nlohmann::json j = {{"schema", "dlready.audit-verify/1"}, {"log", a.audit_path}, {"intact", v.intact},
                        {"records", v.records}, {"signed", !a.public_key.empty()}, {"notes", v.notes}};
    if (!v.intact) j["problem"] = v.problem, j["first_bad_record"] = v.first_bad;
    std::cout << json_text(j, 2) << std::endl;
  } else if (v.intact) {
    std::printf("%s: intact: %zu record(s), hash chain%s verified\n", a.audit_path.c_str(), v.records,
                a.public_key.empty() ? "" : " and Ed25519 signatures");
    for (const auto& n : v.notes) std::printf("  note: %s\n", n.c_str());
  } else if (unreadable) {
    std::fprintf(stderr, "dlready audit verify: %s\n", v.problem.c_str());
  } else {
    std::printf("%s: NOT intact: %s (%zu record(s) before it verified)\n", a.audit_path.c_str(), v.problem.c_str(),
                v.records);
  }
  return v.intact ? ExitCode::ok : unreadable ? ExitCode::usage : ExitCode::failed;
}

}  // namespace

std::optional<ExitCode> run_security_command(const CLI::App& app, const SecurityArgs& a) {
  if (app.got_subcommand("keygen")) return keygen(a);
  if (app.got_subcommand("rekey")) return rekey(a);
  if (app.got_subcommand("audit")) return audit_verify(a);
  return std::nullopt;
}

}  // namespace dlready
