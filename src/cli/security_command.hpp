// The first tutorial's safety section on the command line: `dlready keygen`, `dlready rekey`,
// `dlready audit verify`, and the key options every command that reads or writes weights shares.
#pragma once
#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "core/exit_code.hpp"

namespace dlready {

// --key-file KEY (default: $DLREADY_KEY_FILE) and --passphrase-env VAR, mutually exclusive.
void add_key_options(CLI::App* cmd, std::string& key_file, std::string& passphrase_env, const std::string& what);

// --audit-log FILE and --audit-sign-key KEY (Ed25519, dlready keygen --sign).
void add_audit_options(CLI::App* cmd, std::string& audit_log, std::string& sign_key, const std::string& what);

struct SecurityArgs {
  // keygen
  std::string keygen_out;
  bool keygen_sign = false;
  // rekey
  std::string rekey_file, old_key_file, old_passphrase_env, new_key_file, new_passphrase_env;
  std::string rekey_out;  // "" = replace the file in place
  bool decrypt = false;
  // audit verify
  std::string audit_path, public_key;
  bool json = false;
};

void add_security_commands(CLI::App& app, SecurityArgs& a);
// The command parsed (keygen, rekey, audit verify), or nullopt when none of them was.
std::optional<ExitCode> run_security_command(const CLI::App& app, const SecurityArgs& a);

}  // namespace dlready
