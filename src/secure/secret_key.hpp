// The keys of dlready's encrypted files, as the first tutorial's safety section asks ("encrypt
// models when saving them", 模型安全：使用torch.save()保存模型时加密处理): a 32-byte key file from `dlready keygen`, or a passphrase taken from
// an environment variable and stretched with Argon2id. A key is named by the user (a path, a
// variable's name), never given on the command line, so it never shows in the process list; its
// bytes live in libsodium's guarded memory (locked, left out of core dumps, zeroed when freed).
#pragma once
#include <sys/types.h>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "core/status.hpp"

namespace dlready {

inline constexpr size_t kKeyBytes = 32;   // XChaCha20-Poly1305 key
inline constexpr size_t kSaltBytes = 16;  // Argon2id salt

// Bytes in sodium_malloc'ed memory: mlock'ed, MADV_DONTDUMP, zeroed by sodium_free.
class SecretBytes {
 public:
  explicit SecretBytes(size_t n);
  ~SecretBytes();
  SecretBytes(const SecretBytes&) = delete;
  SecretBytes& operator=(const SecretBytes&) = delete;
  unsigned char* data() { return p_; }
  const unsigned char* data() const { return p_; }
  size_t size() const { return n_; }

 private:
  unsigned char* p_;
  size_t n_;
};

// How the user named the key: a key file, or the environment variable holding a passphrase.
struct KeyChoice {
  std::string key_file;
  std::string passphrase_env;
  bool empty() const { return key_file.empty() && passphrase_env.empty(); }
};

// What a sealed file's header says about its key (the KDF and its parameters, never the key).
enum class KeyKind : uint8_t { key_file = 1, passphrase = 2 };
struct KeyDerivation {
  KeyKind kind = KeyKind::key_file;
  uint64_t opslimit = 0, memlimit = 0;  // Argon2id's limits (passphrase only)
  std::array<unsigned char, kSaltBytes> salt{};
};

// The key to seal and open files with. A passphrase gives one key per salt: a new file uses the
// salt chosen when the key was loaded, an existing file the salt in its header.
class SealingKey {
 public:
  struct Loaded;
  // Reads the key file (a regular file of exactly 32 bytes, mode without group/other access) or
  // the passphrase variable (set and not empty). Errors name the file or variable and the fix.
  static Loaded load(const KeyChoice& choice);
  // A key held elsewhere (the fuzz target's fixed key, a key from a key service): 32 bytes.
  static std::unique_ptr<SealingKey> from_raw_key(const unsigned char* key, std::string description);
  SealingKey(const SealingKey&) = delete;
  SealingKey& operator=(const SealingKey&) = delete;
  ~SealingKey();

  // The derivation to write into a new file, and its key.
  const KeyDerivation& new_file_derivation() const { return new_file_; }
  // The key for a file with this derivation; nullptr with `error` set when it cannot be had (a
  // passphrase file opened with a key file, limits out of range, Argon2id out of memory).
  const unsigned char* key_for(const KeyDerivation& d, std::string& error);
  // "key file KEY" / "the passphrase in $VAR": for messages (never the key).
  const std::string& description() const { return description_; }
  KeyKind kind() const { return new_file_.kind; }

 private:
  SealingKey() = default;
  std::string description_;
  std::unique_ptr<SecretBytes> secret_;  // the key file's key, or the passphrase
  KeyDerivation new_file_;
  std::map<std::array<unsigned char, kSaltBytes>, std::unique_ptr<SecretBytes>> derived_;  // salt -> key
};

struct SealingKey::Loaded {
  std::unique_ptr<SealingKey> key;
  std::string error;
};

// A short public name of a key: BLAKE2b keyed with the key over a fixed text, so it identifies the
// key (in file headers and the audit log) and cannot reveal it. 16 hex digits.
std::string key_id(const unsigned char* key);

// `dlready keygen --out PATH`: 32 random bytes, mode 0600. An existing file is never replaced
// (a key overwritten is every file sealed with it lost).
Status write_new_key_file(const std::string& path);
// `dlready keygen --sign --out PATH`: an Ed25519 key pair for signing audit records: PATH (the
// 64-byte secret key, mode 0600) and PATH.pub (the 32-byte public key, mode 0644).
Status write_new_signing_key(const std::string& path);

// Reads a secret key file of `bytes` bytes the way load() reads a key file (regular, owner-only).
struct SecretFile {
  std::unique_ptr<SecretBytes> bytes;
  std::string error;
};
SecretFile read_secret_file(const std::string& path, size_t bytes, const std::string& what);

}  // namespace dlready
