#include "secure/job_token.hpp"

#include <sys/stat.h>

#include <cstdlib>
#include <cstring>

#include "os/bounded_file.hpp"
#include "core/json_text.hpp"
#include "core/text.hpp"
#include "secure/sodium_init.hpp"

namespace dlready {
namespace {

constexpr size_t kMinTokenChars = 16;

std::string hex(const unsigned char* p, size_t n) {
  std::string out(n * 2 + 1, '\0');
  sodium_bin2hex(out.data(), out.size(), p, n);
  out.pop_back();
  return out;
}

void compute_mac(const std::string& token, const std::string& nonce, const nlohmann::json& message,
                 unsigned char out[crypto_auth_hmacsha256_BYTES]) {
  ensure_sodium();
  unsigned char key[crypto_auth_hmacsha256_KEYBYTES];
  crypto_generichash(key, sizeof key, reinterpret_cast<const unsigned char*>(token.data()), token.size(), nullptr, 0);
  nlohmann::json covered = message;
  if (covered.is_object()) covered.erase("mac");
  std::string text = nonce + "\n" + json_text(covered);  // keys sorted: one text for one message
  crypto_auth_hmacsha256(out, reinterpret_cast<const unsigned char*>(text.data()), text.size(), key);
  sodium_memzero(key, sizeof key);
}

}  // namespace

std::string new_nonce() {
  ensure_sodium();
  unsigned char n[16];
  randombytes_buf(n, sizeof n);
  return hex(n, sizeof n);
}

std::string message_mac(const std::string& token, const std::string& nonce, const nlohmann::json& message) {
  unsigned char mac[crypto_auth_hmacsha256_BYTES];
  compute_mac(token, nonce, message, mac);
  return hex(mac, sizeof mac);
}

bool message_mac_ok(const std::string& token, const std::string& nonce, const nlohmann::json& message) {
  if (!message.is_object() || !message.contains("mac") || !message["mac"].is_string()) return false;
  const std::string& given = message["mac"].get_ref<const std::string&>();
  unsigned char want[crypto_auth_hmacsha256_BYTES], got[crypto_auth_hmacsha256_BYTES];
  size_t len = 0;
  if (given.size() != 2 * sizeof got ||
      sodium_hex2bin(got, sizeof got, given.data(), given.size(), nullptr, &len, nullptr) != 0 || len != sizeof got)
    return false;
  compute_mac(token, nonce, message, want);
  return crypto_verify_32(want, got) == 0;
}

JobTokenLoad load_job_token(const std::string& file) {
  JobTokenLoad r;
  std::string token, source;
  if (!file.empty()) {
    auto read = read_regular_file(file, 64 << 10, "a job token file");
    if (!read.bytes) {
      r.error = read.error;
      return r;
    }
    struct stat st {};
    if (::stat(file.c_str(), &st) == 0 && (st.st_mode & 0077))
      r.error = file + " is readable by other users: chmod 600 " + file;
    token = trim(first_line(*read.bytes));
    source = file;
  } else if (const char* env = std::getenv("DLREADY_JOB_TOKEN"); env && *env) {
    token = env;
    source = "DLREADY_JOB_TOKEN";
  } else {
    return r;
  }
  if (!r.error.empty()) return r;
  if (token.size() < kMinTokenChars) {
    r.error = source + ": a job token of " + std::to_string(token.size()) + " characters is too short (at least " +
              std::to_string(kMinTokenChars) + "; make one with: head -c 32 /dev/urandom | base64 > FILE; chmod 600 FILE)";
    return r;
  }
  r.token = token;
  return r;
}

}  // namespace dlready
