#include "secure/audit_log.hpp"

#include <algorithm>
#include <fcntl.h>
#include <pwd.h>
#include <sodium.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <set>

#include "os/atomic_file.hpp"
#include "os/host_name.hpp"
#include "os/bounded_file.hpp"
#include "core/json_text.hpp"
#include "os/posix_fs.hpp"
#include "core/redact.hpp"
#include "core/text.hpp"
#include "secure/sodium_init.hpp"

namespace dlready {
namespace {

constexpr size_t kHash = crypto_generichash_BYTES;  // 32
const std::string kNoPrev(2 * kHash, '0');          // the first record's "prev"
constexpr size_t kTailWindow = 1 << 20;             // a record is far smaller than this
constexpr size_t kMaxRecordBytes = 256 << 10;       // the longest record dlready writes is a few KiB

std::string hex(const unsigned char* p, size_t n) {
  std::string out(2 * n + 1, '\0');
  sodium_bin2hex(out.data(), out.size(), p, n);
  out.pop_back();
  return out;
}

// BLAKE2b of the record's canonical text: the record without "hash" and "sig", keys sorted.
// Why the log's last record is not the one LOG.head names ("" when it is, or there is no head
// file): a log whose end was cut off must not be appended to as if it were whole. A head one
// record behind is the last good state after a crash between the record and the head.
// LOG.head as write_head wrote it, read once for both its readers (the append and `audit verify`).
struct Head {
  enum State { absent, unreadable, damaged, ok } state = absent;
  uint64_t seq = 0;
  std::string hash, sig;  // sig: "" when the log is unsigned
};

Head read_head(const std::string& log_path) {
  Head h;
  std::string path = log_path + ".head";
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return h;
  auto read = read_regular_file(path, 4096, "an audit head file");
  if (!read.bytes) {
    h.state = Head::unreadable;
    return h;
  }
  auto j = parse_json_bounded(*read.bytes);
  if (!j.is_object() || !j.contains("seq") || !j["seq"].is_number_unsigned() || !j.contains("hash") ||
      !j["hash"].is_string()) {
    h.state = Head::damaged;
    return h;
  }
  h.state = Head::ok;
  h.seq = j["seq"];
  h.hash = j["hash"];
  if (j.contains("sig") && j["sig"].is_string()) h.sig = j["sig"];
  return h;
}

Status head_mismatch(const std::string& path, const nlohmann::json& last) {
  auto head = read_head(path);
  if (head.state == Head::damaged) return Status::failure(path + ".head is damaged");
  if (head.state != Head::ok) return {};
  uint64_t have = last.is_null() ? 0 : last["seq"].get<uint64_t>();
  if (head.seq > have)
    return Status::failure("its head file says record " + std::to_string(head.seq) +
                           " was written, the log ends at " + std::to_string(have) +
                           " (the end was cut off)");
  if (head.seq == have && (last.is_null() || last["hash"] != head.hash))
    return Status::failure("its last record is not the one its head file names");
  return {};
}

// What a head file's signature covers.
std::string head_text(uint64_t seq, const std::string& hash) {
  return "dlready.audit-head/1 " + std::to_string(seq) + " " + hash;
}

std::string record_hash(nlohmann::json record) {
  record.erase("hash");
  record.erase("sig");
  std::string text = json_text(record);
  unsigned char h[kHash];
  crypto_generichash(h, kHash, reinterpret_cast<const unsigned char*>(text.data()), text.size(), nullptr, 0);
  return hex(h, kHash);
}

std::string utc_now_with_ms() {  // the audit record's time, to the millisecond
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

std::string user_name() {
  struct passwd pw {}, *found = nullptr;
  char buf[4096];
  if (::getpwuid_r(::geteuid(), &pw, buf, sizeof buf, &found) == 0 && found) return found->pw_name;
  return "uid " + std::to_string(::geteuid());
}



// The last record of an open log (for its hash and sequence number): null for an empty log, an
// error when the file does not end in a whole record.
struct Tail {
  nlohmann::json record;
  std::string error;
};
Tail last_record(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return {nullptr, path + ": cannot stat (" + std::strerror(errno) + ")"};
  if (st.st_size == 0) return {nullptr, ""};
  size_t window = static_cast<size_t>(std::min<off_t>(st.st_size, kTailWindow));
  std::string buf(window, '\0');
  ssize_t n = ::pread(fd, buf.data(), window, st.st_size - static_cast<off_t>(window));
  if (n != static_cast<ssize_t>(window)) return {nullptr, path + ": cannot read its last record"};
  const std::string damaged = path + ": the log does not end in a whole record (cut off or edited): run dlready audit "
                                     "verify " + path + ", and move the log aside to start a new one";
  if (buf.back() != '\n') return {nullptr, damaged};
  size_t start = buf.find_last_of('\n', buf.size() - 2);
  start = start == std::string::npos ? 0 : start + 1;
  if (start == 0 && window < static_cast<size_t>(st.st_size)) return {nullptr, damaged};
  auto j = parse_json_bounded(std::string_view(buf).substr(start, buf.size() - 1 - start));
  if (j.is_discarded() || !j.is_object() || !j.contains("hash") || !j["hash"].is_string() || !j.contains("seq") ||
      !j["seq"].is_number_unsigned())
    return {nullptr, damaged};
  return {std::move(j), ""};
}

// --redact's rule for variable names (core/redact), and any "key" at all: on a command line
// "--keyfile X" or "--api-key X" may well carry one.
bool secret_looking(const std::string& name) {
  return secret_variable_name(name) || to_lower(name).find("key") != std::string::npos;
}

}  // namespace

std::vector<std::string> mask_command_line(const std::vector<std::string>& argv) {
  // dlready's own options that hold a path or a variable's name, never a secret.
  static const std::set<std::string> kNamesNotSecrets = {"--key-file",       "--new-key-file", "--audit-sign-key",
                                                         "--public-key",     "--passphrase-env",
                                                         "--new-passphrase-env"};
  std::vector<std::string> out;
  bool mask_next = false;
  for (const auto& a : argv) {
    if (mask_next) {
      out.push_back("***");
      mask_next = false;
      continue;
    }
    auto eq = a.find('=');
    std::string name = a.substr(0, eq);
    bool is_option = a.rfind("-", 0) == 0;
    if (kNamesNotSecrets.count(name) || !secret_looking(name) || (!is_option && eq == std::string::npos)) {
      out.push_back(a);
      continue;
    }
    if (eq != std::string::npos) out.push_back(name + "=***");
    else {
      out.push_back(a);
      mask_next = true;  // "--token VALUE"
    }
  }
  return out;
}

std::vector<std::string> own_command_line() {
  // /proc files report a size of 0: read to the end (bounded) instead of by the size.
  std::vector<std::string> argv;
  int fd = ::open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return argv;
  std::string bytes, buf(4096, '\0');
  for (ssize_t n; bytes.size() < (1u << 20) && (n = ::read(fd, buf.data(), buf.size())) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    bytes.append(buf.data(), static_cast<size_t>(n));
  }
  ::close(fd);
  size_t at = 0;
  while (at < bytes.size()) {
    size_t end = bytes.find('\0', at);
    if (end == std::string::npos) end = bytes.size();
    argv.push_back(bytes.substr(at, end - at));
    at = end + 1;
  }
  return argv;
}

std::string blake2b_hex(std::string_view bytes) {
  ensure_sodium();
  unsigned char h[kHash];
  crypto_generichash(h, kHash, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), nullptr, 0);
  return hex(h, kHash);
}

std::optional<std::string> blake2b_file(const std::string& path) {
  ensure_sodium();
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return std::nullopt;
  }
  crypto_generichash_state state;
  crypto_generichash_init(&state, nullptr, 0, kHash);
  std::string buf(1 << 16, '\0');
  for (;;) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(buf.data()), static_cast<size_t>(n));
  }
  ::close(fd);
  unsigned char h[kHash];
  crypto_generichash_final(&state, h, kHash);
  return hex(h, kHash);
}

AuditLog::Opened AuditLog::open(std::vector<std::string> paths, const std::string& sign_key_file,
                                const std::vector<std::string>& command) {
  ensure_sodium();
  std::unique_ptr<AuditLog> log(new AuditLog);
  if (!sign_key_file.empty()) {
    auto key = read_secret_file(sign_key_file, crypto_sign_SECRETKEYBYTES, "an Ed25519 signing key");
    if (!key.bytes) return {nullptr, "--audit-sign-key " + key.error};
    log->sign_key_ = std::move(key.bytes);
  }
  for (const auto& p : paths) {  // a device, FIFO or link named as the log is a wrong argument, said before any work
    struct stat st {};
    if (::lstat(p.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
      return {nullptr, "audit log " + p + ": a symbolic link; refusing to follow it (a planted link would send the "
                       "records elsewhere): give the log's real path"};
    if (::stat(p.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
      return {nullptr, "audit log " + p + ": " + file_kind(st.st_mode) + ", not a log file (give the path of a file)"};
  }
  log->paths_ = std::move(paths);
  log->who_ = {{"user", user_name()}, {"host", host_name().value_or("?")}, {"pid", static_cast<long long>(::getpid())},
               {"command", mask_command_line(command)}};
  return {std::move(log), ""};
}

Status AuditLog::append(const std::string& event, const nlohmann::json& details) {
  for (const auto& p : paths_)
    if (auto st = append_to(p, event, details); !st) return st;
  return {};
}

// LOG.head: the sequence number and hash of the log's last record (signed with the log's key), so
// `audit verify` can tell a log whose end was cut off. Rewritten atomically after every append,
// under the log's lock.
Status AuditLog::write_head(const std::string& path, uint64_t seq, const std::string& hash) const {
  nlohmann::json head = {{"schema", "dlready.audit-head/1"}, {"seq", seq}, {"hash", hash}};
  if (sign_key_) {
    std::string text = head_text(seq, hash);
    unsigned char sig[crypto_sign_BYTES];
    crypto_sign_detached(sig, nullptr, reinterpret_cast<const unsigned char*>(text.data()), text.size(), sign_key_->data());
    head["sig"] = hex(sig, sizeof sig);
  }
  if (auto st = write_file_atomically(path + ".head", json_text(head) + "\n", 0640); !st)
    return Status::failure("audit log " + path + ": the record was written, its head file " + path + ".head not (" +
                           st.error() + ")");
  return {};
}

Status AuditLog::append_to(const std::string& path, const std::string& event, const nlohmann::json& details) {
  // O_NOFOLLOW: a link planted at the log's path after it was checked is refused, not followed.
  int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW, 0640);
  if (fd < 0 && errno == ELOOP)
    return Status::failure("audit log " + path + ": a symbolic link; refusing to follow it: give the log's real path");
  if (fd < 0) return Status::failure("audit log " + path + ": cannot open (" + std::strerror(errno) + ")");
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }  // also drops the lock
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    return Status::failure("audit log " + path + ": " + file_kind(st.st_mode) + ", not a log file");
  if (::flock(fd, LOCK_EX) != 0) return Status::failure("audit log " + path + ": cannot lock (" + std::strerror(errno) + ")");
  auto tail = last_record(fd, path);
  if (!tail.error.empty()) return Status::failure("audit log " + tail.error);
  if (Status why = head_mismatch(path, tail.record); !why.ok())
    return Status::failure("audit log " + path + ": " + why.error() +
                           ": run dlready audit verify " + path +
                           ", and move the log aside to start a new one");
  nlohmann::json r = who_;
  r["time"] = utc_now_with_ms();
  r["event"] = event;
  r["details"] = details;
  r["seq"] = tail.record.is_null() ? uint64_t{1} : tail.record["seq"].get<uint64_t>() + 1;
  r["prev"] = tail.record.is_null() ? kNoPrev : tail.record["hash"].get<std::string>();
  std::string h = record_hash(r);
  r["hash"] = h;
  if (sign_key_) {
    unsigned char bin[kHash], sig[crypto_sign_BYTES];
    sodium_hex2bin(bin, kHash, h.data(), h.size(), nullptr, nullptr, nullptr);
    crypto_sign_detached(sig, nullptr, bin, kHash, sign_key_->data());
    r["sig"] = hex(sig, sizeof sig);
  }
  std::string line = json_text(r) + "\n";
  // One write of the whole line (O_APPEND): a reader or another writer never sees half a record.
  // A record is appended whole or not at all: a short write (a full disk) is cut off again, so
  // the log still ends in its last good record.
  struct stat before {};
  if (::fstat(fd, &before) != 0) return Status::failure("audit log " + path + ": cannot stat (" + std::strerror(errno) + ")");
  ssize_t n = ::write(fd, line.data(), line.size());
  int write_errno = errno;
  bool ok = n == static_cast<ssize_t>(line.size()) && ::fsync(fd) == 0;
  if (!ok) {
    std::string why = n < 0 ? std::strerror(write_errno) : n != static_cast<ssize_t>(line.size()) ? "short write (disk full?)"
                                                                                                   : std::strerror(errno);
    bool restored = ::ftruncate(fd, before.st_size) == 0;
    return Status::failure("audit log " + path + ": the record could not be written (" + why + ")" +
                           (restored ? "; the log is as it was" : "; the log may end in a partial record"));
  }
  return write_head(path, r["seq"].get<uint64_t>(), h);
}

namespace {

// Checks one parsed line against the record before it: ok when it follows correctly.
Status check_record(const nlohmann::json& r, const nlohmann::json& prev,
                    const unsigned char* public_key) {
  if (!r.is_object() || !r.contains("hash") || !r["hash"].is_string() || !r.contains("prev") || !r["prev"].is_string() ||
      !r.contains("seq") || !r["seq"].is_number_unsigned() || !r.contains("event") || !r["event"].is_string())
    return Status::failure("not an audit record (a field is missing or of the wrong type)");
  const std::string h = r["hash"];
  if (record_hash(r) != h) return Status::failure("edited: its content does not match its hash");
  if (public_key) {
    if (!r.contains("sig") || !r["sig"].is_string())
      return Status::failure(
          "not signed (the log was written without --audit-sign-key, or the signature was "
          "removed)");
    unsigned char bin[kHash], sig[crypto_sign_BYTES];
    const std::string s = r["sig"];
    if (sodium_hex2bin(sig, sizeof sig, s.data(), s.size(), nullptr, nullptr, nullptr) != 0 ||
        sodium_hex2bin(bin, kHash, h.data(), h.size(), nullptr, nullptr, nullptr) != 0 ||
        crypto_sign_verify_detached(sig, bin, kHash, public_key) != 0)
      return Status::failure(
          "its signature does not verify: edited (and re-hashed), or signed with another key");
  }
  const uint64_t seq = r["seq"];
  const uint64_t expected = prev.is_null() ? 1 : prev["seq"].get<uint64_t>() + 1;
  if (seq > expected)
    return Status::failure((seq - 1 > expected ? "records " + std::to_string(expected) + "–" +
                                                     std::to_string(seq - 1) + " are"
                                               : "record " + std::to_string(expected) + " is") +
                           " missing before it (deleted, or moved further down)");
  if (seq < expected)
    return Status::failure("out of order: sequence number " + std::to_string(seq) + " where " +
                           std::to_string(expected) +
                           " belongs (records reordered, repeated or inserted)");
  const std::string want_prev = prev.is_null() ? kNoPrev : prev["hash"].get<std::string>();
  if (r["prev"] != want_prev)
    return Status::failure(prev.is_null() ? "it does not start a log, though it is the first "
                                            "record (the records before it were deleted)"
                                          : "it does not follow the record before it (that record "
                                            "was replaced, or this one inserted)");
  return {};
}

}  // namespace

namespace {

// Checks a log one record at a time (a log is streamed, never held whole in memory).
class RecordChecker {
 public:
  explicit RecordChecker(const unsigned char* public_key) : public_key_(public_key) { ensure_sodium(); }
  // One line without its newline; false once a problem was found (then finish() says which).
  bool line(std::string_view text);
  // A line that grew past any record dlready writes: a problem at once, without reading it whole.
  void too_long(size_t bytes) { bad(bytes_text(bytes) + ", longer than any record dlready writes: edited or not an audit log"); }
  AuditVerdict finish(bool cut_off);
  bool failed() const { return !v_.problem.empty(); }

 private:
  static std::string bytes_text(size_t n) { return std::to_string(n) + " bytes"; }
  void bad(const std::string& why) {
    v_.first_bad = v_.records + 1;
    v_.problem = "record " + std::to_string(v_.first_bad) + ": " + why;
  }
  const unsigned char* public_key_;
  AuditVerdict v_;
  nlohmann::json prev_;
  std::set<std::string> open_runs_;  // pids with a run_start and no end yet
};

bool RecordChecker::line(std::string_view text) {
  if (failed()) return false;
  if (text.size() > kMaxRecordBytes) {
    too_long(text.size());
    return false;
  }
  std::string why;
  auto r = parse_json_bounded(text, &why);
  why =
      r.is_discarded() ? why + ": damaged or edited" : check_record(r, prev_, public_key_).error();
  if (!why.empty()) {
    bad(why);
    return false;
  }
  // value() would throw on a field of another type: read them only as what they should be.
  std::string run = (r.contains("host") && r["host"].is_string() ? r["host"].get<std::string>() : "?") + ":" +
                    (r.contains("pid") && r["pid"].is_number_integer() ? std::to_string(r["pid"].get<long long>()) : "?");
  const std::string ev = r["event"];
  if (ev == "run_start" || ev == "launch_start") open_runs_.insert(run);
  if (ev == "finish" || ev == "stop" || ev == "nan_stop" || ev == "fail" || ev == "launch_end") open_runs_.erase(run);
  v_.last_hash = r["hash"].get<std::string>();
  prev_ = std::move(r);
  ++v_.records;
  return true;
}

AuditVerdict RecordChecker::finish(bool cut_off) {
  if (!failed() && cut_off) {
    v_.first_bad = v_.records + 1;
    v_.problem = "record " + std::to_string(v_.first_bad) + " is cut off (no end of line): the log was truncated";
  }
  if (failed()) return v_;
  for (const auto& run : open_runs_)
    v_.notes.push_back("the run of " + run + " has no end record (killed, still running, or the log was cut after it)");
  v_.intact = true;
  return v_;
}

// The log at `path`, streamed through a checker: a regular file only, read in 1 MiB pieces.
AuditVerdict stream_log(const std::string& path, const unsigned char* public_key) {
  AuditVerdict v;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    v.problem = path + ": cannot open (" + std::strerror(errno) + ")";
    v.unreadable = true;
    return v;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    v.problem = path + ": " + file_kind(st.st_mode) + ", not an audit log (give the path of a file)";
    v.unreadable = true;
    return v;
  }
  RecordChecker checker(public_key);
  std::string pending, chunk(1 << 20, '\0');
  for (;;) {
    ssize_t n = ::read(fd, chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(chunk.data(), static_cast<size_t>(n));
    size_t at = 0;
    for (size_t nl; !checker.failed() && (nl = pending.find('\n', at)) != std::string::npos; at = nl + 1)
      checker.line(std::string_view(pending).substr(at, nl - at));
    pending.erase(0, at);
    if (!checker.failed() && pending.size() > kMaxRecordBytes) checker.too_long(pending.size());
    if (checker.failed()) break;
  }
  ::close(fd);
  return checker.finish(!checker.failed() && !pending.empty());
}

// The log against its head file: an end cut off (the head names a later record) is a problem.
void check_head(const std::string& path, const unsigned char* public_key, AuditVerdict& v) {
  std::string head_path = path + ".head";
  auto head = read_head(path);
  if (head.state == Head::absent) {
    v.notes.push_back("no head file (" + head_path + "): a log whose last records were cut off cannot be told from a "
                      "whole one (logs written before dlready kept one have none)");
    return;
  }
  // A head problem is the log's (exit 1, not intact): the first record that cannot be vouched for
  // is the one after those verified (the last one, when it was replaced).
  auto fail = [&](const std::string& why, size_t first_bad) {
    v.intact = false;
    v.problem = why;
    v.first_bad = first_bad;
  };
  const size_t after = v.records + 1;
  if (head.state != Head::ok) return fail(head_path + ": not a head file (damaged or edited)", after);
  const uint64_t seq = head.seq;
  const std::string& hash = head.hash;
  if (public_key) {
    std::string text = head_text(seq, hash);
    unsigned char sig[crypto_sign_BYTES];
    const std::string& s = head.sig;
    if (sodium_hex2bin(sig, sizeof sig, s.data(), s.size(), nullptr, nullptr, nullptr) != 0 ||
        crypto_sign_verify_detached(sig, reinterpret_cast<const unsigned char*>(text.data()), text.size(), public_key) != 0)
      return fail(head_path + ": its signature does not verify (edited, or signed with another key)", after);
  }
  if (seq > v.records)
    return fail("the log ends at record " + std::to_string(v.records) + " but its head file says record " +
                std::to_string(seq) + " was written: the end of the log was cut off (records " +
                std::to_string(v.records + 1) + "–" + std::to_string(seq) + " are gone)", after);
  if (seq == v.records && hash != v.last_hash)
    return fail("the log's last record is not the one its head file names: the end of the log was replaced",
                std::max<size_t>(v.records, 1));
  if (seq < v.records)
    v.notes.push_back("the head file names record " + std::to_string(seq) + " of " + std::to_string(v.records) +
                      " (an older head file restored, or records appended by something other than dlready)");
}

}  // namespace

AuditVerdict verify_audit_log(const std::string& path, const std::string& public_key_file) {
  ensure_sodium();
  AuditVerdict v;
  std::unique_ptr<SecretBytes> pk;  // not secret, but read as strictly as one (a regular file of 32 bytes)
  if (!public_key_file.empty()) {
    auto file = read_regular_file(public_key_file, 1024, "an Ed25519 public key");
    if (!file.bytes || file.bytes->size() != crypto_sign_PUBLICKEYBYTES) {
      v.problem = file.bytes ? public_key_file + ": " + std::to_string(file.bytes->size()) +
                                   " bytes, not an Ed25519 public key (32 bytes: the .pub file of dlready keygen --sign)"
                             : file.error;
      v.unreadable = true;
      return v;
    }
    pk = std::make_unique<SecretBytes>(crypto_sign_PUBLICKEYBYTES);
    std::memcpy(pk->data(), file.bytes->data(), crypto_sign_PUBLICKEYBYTES);
  }
  v = stream_log(path, pk ? pk->data() : nullptr);
  if (v.intact) check_head(path, pk ? pk->data() : nullptr, v);
  return v;
}

AuditVerdict verify_audit_bytes(std::string_view b, const unsigned char* public_key) {
  RecordChecker checker(public_key);
  size_t at = 0;
  while (at < b.size()) {
    size_t end = b.find('\n', at);
    if (end == std::string::npos) return checker.finish(/*cut_off=*/true);
    if (!checker.line(b.substr(at, end - at))) break;
    at = end + 1;
  }
  return checker.finish(false);
}

}  // namespace dlready
