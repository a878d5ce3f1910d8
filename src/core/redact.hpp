// `--redact` for doctor and snapshot (the first tutorial's safety section: "do not leak sensitive
// data", 数据隐私保护：避免在训练过程中泄露敏感数据): a report pasted into a public issue should not carry who ran it, where, or a secret.
// The values to hide are known ones — this machine's user names, home directories, host names and
// addresses, and the values of environment variables whose names look secret — replaced wherever
// they appear by placeholders numbered from 1 as they are first found (<user-1>, <home-1>,
// <host-1>, <ip-1>, <secret-1>): a report shows <home-1> before any <home-2>, never a number for a
// value it does not hold (another account's home); the same machine gives the same placeholders
// every time, and `diff` still compares two redacted snapshots. MAC addresses and the credentials in URLs (scheme://user:pw@)
// are found by their shape.
#pragma once
#include <nlohmann/json.hpp>
#include <map>
#include <string>
#include <vector>

namespace dlready {

struct RedactionInputs {
  std::vector<std::string> users, homes, hosts, addresses;
  // Homes hidden through their last folder's name, keeping the rest of the path: /home/alice ->
  // /home/<user-1>, /root -> /<user-1> (the same number as the user, so a capture's copies of
  // files under a home still have a folder to be in, and root's home is hidden like any other).
  std::vector<std::string> shaped_homes;
  // The account the doctor ran as: hidden even when it is a system one like root ("for root",
  // "user": "root"), then only where it stands alone (never inside /root, --root or rootfs).
  std::string account;
  std::map<std::string, std::string> environment;  // every variable; the secret-looking ones are hidden
};

// Package-index URLs (space-separated, as PIP_EXTRA_INDEX_URL takes them) as dlready prints them
// anywhere: without user:password@, each cut to 512 bytes and made printable.
[[nodiscard]] std::string without_credentials(std::string_view urls);

// Whether a variable's name says it holds a secret (TOKEN, KEY, SECRET, PASSWORD, CREDENTIAL, ...).
bool secret_variable_name(const std::string& name);

// What a capture hides, taken from what `--redact` hides: user names, home directories, host names
// and addresses — a home path keeps its shape (/home/<user-1>, /<user-2> for /root,
// C:\Users\<user-1>), so every path the doctor read still resolves in the copy.
RedactionInputs capture_redaction(RedactionInputs hidden);

class Redactor {
 public:
  explicit Redactor(const RedactionInputs& in);
  std::string apply(const std::string& text) const;
  nlohmann::json apply(const nlohmann::json& j) const;  // every string value and key
  // `bytes` with every hidden value overwritten by as many 'x' (a binary file, whose offsets must
  // not move: a capture's copy of an ELF header).
  std::string mask(std::string bytes) const;
  // What is hidden, by kind ("3 user names, 2 home directories, ..."), for the report's note.
  std::string summary() const;

 private:
  struct Literal {
    std::string value, kind;
    bool standalone = false;  // only between spaces, quotes and punctuation other than / . -
    std::string key;          // literals with one key share a placeholder ("root" and "/root")
    std::string prefix;       // written before the placeholder ("/home/" of a shaped home)
  };
  // The placeholder of literal `i`, numbered within its kind when first needed.
  std::string placeholder(size_t i) const;
  std::string apply_text(const std::string& text, bool standalone_too) const;
  void add_shaped_homes(const std::vector<std::string>& homes);
  std::vector<Literal> literals_;  // longest first, so /home/alice goes before alice
  std::map<std::string, int> counts_;
  // Mutable: the numbers are handed out as values are found, across every text this redactor
  // hides (a capture's files and its report share them).
  mutable std::map<std::string, std::string> placeholders_;  // kind '\0' key -> placeholder
  mutable std::map<std::string, int> numbered_;  // kind -> placeholders handed out
};

}  // namespace dlready
