#include "secure/secret_key.hpp"

#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "os/atomic_file.hpp"
#include "os/posix_fs.hpp"
#include "secure/sodium_init.hpp"

namespace dlready {
namespace {

std::string octal_mode(mode_t m) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(m & 07777));
  return buf;
}

// Writes `bytes` as a new file at `path` (never over an existing one), atomically, with `mode`.
Status write_new_file(const std::string& path, const unsigned char* bytes, size_t n, mode_t mode) {
  if (::access(path.c_str(), F_OK) == 0)
    return Status::failure(path + " exists; nothing written (a key replaced loses every file sealed with it: "
                                  "remove it first, or choose another --out)");
  return write_file_atomically(path, std::string_view(reinterpret_cast<const char*>(bytes), n), mode);
}

}  // namespace

SecretBytes::SecretBytes(size_t n) : n_(n) {
  ensure_sodium();
  p_ = static_cast<unsigned char*>(sodium_malloc(n == 0 ? 1 : n));
  if (!p_) throw std::bad_alloc();
}

SecretBytes::~SecretBytes() { sodium_free(p_); }

SecretFile read_secret_file(const std::string& path, size_t bytes, const std::string& what) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return {nullptr, path + ": cannot open " + what + " (" + std::strerror(errno) + ")"};
  struct stat st {};
  std::string error;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    error = path + ": " + (S_ISREG(st.st_mode) ? std::string("cannot stat") : file_kind(st.st_mode)) + ", not " + what;
  else if ((st.st_mode & 077) != 0)
    error = path + ": " + what + " readable by group or others (mode " + octal_mode(st.st_mode) +
            "); refused: chmod 600 " + path + " (and make a new key if others may have read it)";
  else if (static_cast<uint64_t>(st.st_size) != bytes)
    error = path + ": " + std::to_string(st.st_size) + " bytes, not " + what + " (" + std::to_string(bytes) +
            " bytes, as dlready keygen writes)";
  if (!error.empty()) {
    ::close(fd);
    return {nullptr, error};
  }
  auto secret = std::make_unique<SecretBytes>(bytes);
  size_t got = 0;
  while (got < bytes) {
    ssize_t n = ::read(fd, secret->data() + got, bytes - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  if (got != bytes) return {nullptr, path + ": short read of " + what};
  return {std::move(secret), ""};
}

SealingKey::Loaded SealingKey::load(const KeyChoice& choice) {
  ensure_sodium();
  if (!choice.key_file.empty() && !choice.passphrase_env.empty())
    return {nullptr, "give --key-file or --passphrase-env, not both"};
  std::unique_ptr<SealingKey> k(new SealingKey);
  if (!choice.key_file.empty()) {
    auto file = read_secret_file(choice.key_file, kKeyBytes, "a dlready key");
    if (!file.bytes) return {nullptr, file.error};
    k->secret_ = std::move(file.bytes);
    k->description_ = "key file " + choice.key_file;
    k->new_file_.kind = KeyKind::key_file;
    return {std::move(k), ""};
  }
  const char* pass = std::getenv(choice.passphrase_env.c_str());
  if (!pass || !*pass)
    return {nullptr, "--passphrase-env " + choice.passphrase_env + ": the variable is " + (pass ? "empty" : "not set") +
                         " (export " + choice.passphrase_env + " with the passphrase; it is never read from the command line)"};
  size_t n = std::strlen(pass);
  k->secret_ = std::make_unique<SecretBytes>(n);
  std::memcpy(k->secret_->data(), pass, n);
  k->description_ = "the passphrase in $" + choice.passphrase_env;
  k->new_file_.kind = KeyKind::passphrase;
  k->new_file_.opslimit = crypto_pwhash_argon2id_OPSLIMIT_INTERACTIVE;
  k->new_file_.memlimit = crypto_pwhash_argon2id_MEMLIMIT_INTERACTIVE;
  randombytes_buf(k->new_file_.salt.data(), kSaltBytes);
  return {std::move(k), ""};
}

std::unique_ptr<SealingKey> SealingKey::from_raw_key(const unsigned char* key, std::string description) {
  std::unique_ptr<SealingKey> k(new SealingKey);
  k->secret_ = std::make_unique<SecretBytes>(kKeyBytes);
  std::memcpy(k->secret_->data(), key, kKeyBytes);
  k->description_ = std::move(description);
  k->new_file_.kind = KeyKind::key_file;
  return k;
}

SealingKey::~SealingKey() = default;

const unsigned char* SealingKey::key_for(const KeyDerivation& d, std::string& error) {
  if (d.kind != new_file_.kind) {
    error = d.kind == KeyKind::passphrase ? "it was sealed with a passphrase, and " + description_ + " is a key file"
                                          : "it was sealed with a key file, and this is " + description_;
    return nullptr;
  }
  if (d.kind == KeyKind::key_file) return secret_->data();
  if (auto it = derived_.find(d.salt); it != derived_.end()) return it->second->data();
  // Limits come from the file: bounded, so a hostile header cannot ask for hours or gigabytes.
  constexpr uint64_t kMaxOps = 16, kMaxMem = uint64_t{1} << 30;
  if (d.opslimit < crypto_pwhash_argon2id_OPSLIMIT_MIN || d.opslimit > kMaxOps ||
      d.memlimit < crypto_pwhash_argon2id_MEMLIMIT_MIN || d.memlimit > kMaxMem) {
    error = "its Argon2id limits are out of range (ops " + std::to_string(d.opslimit) + ", memory " +
            std::to_string(d.memlimit) + " bytes)";
    return nullptr;
  }
  auto key = std::make_unique<SecretBytes>(kKeyBytes);
  if (crypto_pwhash(key->data(), kKeyBytes, reinterpret_cast<const char*>(secret_->data()), secret_->size(),
                    d.salt.data(), d.opslimit, static_cast<size_t>(d.memlimit), crypto_pwhash_ALG_ARGON2ID13) != 0) {
    error = "Argon2id could not run (out of memory for " + std::to_string(d.memlimit >> 20) + " MiB)";
    return nullptr;
  }
  return derived_.emplace(d.salt, std::move(key)).first->second->data();
}

std::string key_id(const unsigned char* key) {
  ensure_sodium();
  static constexpr char kText[] = "dlready key id 1";
  unsigned char id[8];
  crypto_generichash(id, sizeof id, reinterpret_cast<const unsigned char*>(kText), sizeof kText - 1, key, kKeyBytes);
  char hex[2 * sizeof id + 1];
  sodium_bin2hex(hex, sizeof hex, id, sizeof id);
  return hex;
}

Status write_new_key_file(const std::string& path) {
  SecretBytes key(kKeyBytes);
  randombytes_buf(key.data(), kKeyBytes);
  return write_new_file(path, key.data(), kKeyBytes, 0600);
}

Status write_new_signing_key(const std::string& path) {
  ensure_sodium();
  std::string pub_path = path + ".pub";
  if (::access(pub_path.c_str(), F_OK) == 0)
    return Status::failure(pub_path + " exists; nothing written (remove it first, or choose another --out)");
  SecretBytes sk(crypto_sign_SECRETKEYBYTES);
  unsigned char pk[crypto_sign_PUBLICKEYBYTES];
  crypto_sign_keypair(pk, sk.data());
  if (auto st = write_new_file(path, sk.data(), sk.size(), 0600); !st) return st;
  if (auto st = write_new_file(pub_path, pk, sizeof pk, 0644); !st) {
    ::unlink(path.c_str());  // half a key pair is no key pair
    return st;
  }
  return {};
}

}  // namespace dlready
