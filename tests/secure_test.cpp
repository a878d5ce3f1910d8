// Sealed files, keys and the audit log (secure/): every refusal the first tutorial's safety
// section implies — a wrong key, a flipped bit anywhere, a cut-off file, dropped, repeated or
// reordered chunks, a plain file where a sealed one is expected and the reverse, a key file others
// can read — and every edit of an audit log, found and named.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <filesystem>
#include <fstream>
#include <set>
#include <nlohmann/json.hpp>
#include <sstream>

#include "os/atomic_file.hpp"
#include "fixture.hpp"
#include "secure/audit_log.hpp"
#include "secure/sealed_file.hpp"
#include "secure/secret_key.hpp"

namespace dlready::test {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::string pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + 7) % 251);
  return s;
}

std::unique_ptr<SealingKey> key_file_key(const std::string& path) {
  if (::access(path.c_str(), F_OK) != 0) {
    EXPECT_TRUE(write_new_key_file(path).ok());
  }
  auto k = SealingKey::load({path, ""});
  EXPECT_TRUE(k.key) << k.error;
  return std::move(k.key);
}

constexpr size_t kChunk = 64 * 1024, kTag = 17, kHeader = kSealedHeaderBytes;

TEST(SealedFile, RoundTripsEverySizeAroundTheChunk) {
  Fixture f;
  auto key = key_file_key(f.root + "/k");
  for (size_t n : {size_t{0}, size_t{1}, kChunk - 1, kChunk, kChunk + 1, 3 * kChunk + 5}) {
    std::string path = f.root + "/f" + std::to_string(n);
    ASSERT_TRUE(write_protected_file(path, pattern(n), key.get()).ok());
    std::string raw = slurp(path);
    EXPECT_TRUE(is_sealed(raw));
    if (n >= 64) {
      EXPECT_EQ(raw.find(pattern(n).substr(0, 64)), std::string::npos) << "plaintext visible in the sealed file";
    }
    auto back = read_protected_file(path, key.get(), 1 << 30, "a test file");
    ASSERT_TRUE(back.bytes) << back.error;
    EXPECT_EQ(*back.bytes, pattern(n)) << n;
    EXPECT_EQ(back.key_id.size(), 16u);
  }
}

TEST(SealedFile, AWrongKeyIsRefusedNamingBothKeyIds) {
  Fixture f;
  auto a = key_file_key(f.root + "/a"), b = key_file_key(f.root + "/b");
  ASSERT_TRUE(write_protected_file(f.root + "/m", "weights", a.get()).ok());
  auto r = read_protected_file(f.root + "/m", b.get(), 1 << 20, "a model");
  EXPECT_FALSE(r.bytes);
  EXPECT_NE(r.error.find(f.root + "/m: sealed with another key"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("key file " + f.root + "/b has id"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("left as it is"), std::string::npos) << r.error;
  EXPECT_EQ(slurp(f.root + "/m").size(), kHeader + 7 + kTag);  // untouched
}

TEST(SealedFile, EveryFlippedBitIsRefused) {
  Fixture f;
  auto key = key_file_key(f.root + "/k");
  ASSERT_TRUE(write_protected_file(f.root + "/m", pattern(2 * kChunk + 100), key.get()).ok());
  const std::string good = slurp(f.root + "/m");
  // Every header byte, and a spread of bytes through each chunk and its tag.
  std::vector<size_t> at;
  for (size_t i = 0; i < kHeader; ++i) at.push_back(i);
  for (size_t i = kHeader; i < good.size(); i += 997) at.push_back(i);
  at.push_back(good.size() - 1);
  for (size_t i : at) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ (1 << (i % 8)));
    auto r = unseal_bytes(bad, *key, "m");
    EXPECT_FALSE(r.bytes) << "flipped byte " << i << " was accepted";
    EXPECT_FALSE(r.error.empty());
  }
  std::string bad = good;
  bad[kHeader + kChunk + kTag + 10] ^= 1;  // inside chunk 2
  EXPECT_NE(unseal_bytes(bad, *key, "m").error.find("chunk 2 fails authentication"), std::string::npos);
}

TEST(SealedFile, TruncatedDroppedRepeatedAndReorderedChunksAreRefused) {
  Fixture f;
  auto key = key_file_key(f.root + "/k");
  ASSERT_TRUE(write_protected_file(f.root + "/m", pattern(3 * kChunk + 10), key.get()).ok());
  const std::string good = slurp(f.root + "/m");
  const size_t c = kChunk + kTag;
  auto chunk = [&](int i) { return good.substr(kHeader + i * c, i == 3 ? std::string::npos : c); };
  const std::string head = good.substr(0, kHeader);
  for (size_t cut : {size_t{0}, size_t{10}, kHeader, kHeader + 1, kHeader + c, kHeader + 3 * c, good.size() - 1}) {
    auto r = unseal_bytes(good.substr(0, cut), *key, "m");
    EXPECT_FALSE(r.bytes) << "cut at " << cut;
    EXPECT_TRUE(r.error.find("truncated") != std::string::npos || r.error.find("fails authentication") != std::string::npos)
        << cut << ": " << r.error;
  }
  EXPECT_NE(unseal_bytes(good.substr(0, kHeader + 3 * c), *key, "m").error.find("final chunk is missing"),
            std::string::npos);
  struct Case {
    const char* what;
    std::string bytes;
  } cases[] = {
      {"chunk 2 dropped", head + chunk(0) + chunk(2) + chunk(3)},
      {"chunk 1 repeated", head + chunk(0) + chunk(0) + chunk(1) + chunk(2) + chunk(3)},
      {"chunks 2 and 3 swapped", head + chunk(0) + chunk(2) + chunk(1) + chunk(3)},
      {"final chunk dropped", head + chunk(0) + chunk(1) + chunk(2)},
      {"appended bytes", good + "x"},
      {"another file's header", std::string(kSealedMagic, 8) + good.substr(8, 56) + std::string(24, 'x') + chunk(0)},
  };
  for (const auto& x : cases) {
    auto r = unseal_bytes(x.bytes, *key, "m");
    EXPECT_FALSE(r.bytes) << x.what << " was accepted";
  }
  ASSERT_TRUE(write_protected_file(f.root + "/full", pattern(kChunk), key.get()).ok());  // a full final chunk
  EXPECT_NE(unseal_bytes(slurp(f.root + "/full") + "x", *key, "m").error.find("data after the final chunk"),
            std::string::npos);
  EXPECT_NE(unseal_bytes(cases[0].bytes, *key, "m").error.find("dropped, repeated or reordered"), std::string::npos);
}

TEST(SealedFile, PlainWhereSealedIsExpectedAndTheReverseAreRefused) {
  Fixture f;
  auto key = key_file_key(f.root + "/k");
  ASSERT_TRUE(write_protected_file(f.root + "/plain", "DLRCKPT1 not sealed", nullptr).ok());
  ASSERT_TRUE(write_protected_file(f.root + "/sealed", "DLRCKPT1 sealed", key.get()).ok());
  auto a = read_protected_file(f.root + "/plain", key.get(), 1 << 20, "a checkpoint");
  EXPECT_FALSE(a.bytes);
  EXPECT_NE(a.error.find("/plain: not encrypted, and key file"), std::string::npos) << a.error;
  EXPECT_NE(a.error.find("dlready rekey"), std::string::npos) << a.error;
  auto b = read_protected_file(f.root + "/sealed", nullptr, 1 << 20, "a checkpoint");
  EXPECT_FALSE(b.bytes);
  EXPECT_NE(b.error.find("/sealed: encrypted (key id "), std::string::npos) << b.error;
  EXPECT_NE(b.error.find("--key-file"), std::string::npos) << b.error;
  auto c = read_protected_file(f.root + "/plain", nullptr, 1 << 20, "a checkpoint");
  ASSERT_TRUE(c.bytes);
  EXPECT_EQ(*c.bytes, "DLRCKPT1 not sealed");
}

// A format byte no dlready writes (0) is a damaged header, not "sealed by a newer dlready".
TEST(SealedFile, AnImpossibleFormatByteIsADamagedHeader) {
  Fixture f;
  auto key = key_file_key(f.root + "/k");
  ASSERT_TRUE(write_protected_file(f.root + "/sealed", "DLRCKPT1 sealed", key.get()).ok());
  std::string bytes = slurp(f.root + "/sealed");
  bytes[8] = 0;
  spit(f.root + "/sealed", bytes);
  auto r = read_protected_file(f.root + "/sealed", key.get(), 1 << 20, "a checkpoint");
  EXPECT_FALSE(r.bytes);
  EXPECT_NE(r.error.find("no dlready writes: the header is damaged or edited"), std::string::npos) << r.error;
  EXPECT_EQ(r.error.find("newer dlready"), std::string::npos) << r.error;
}

TEST(SealedFile, FifosAndDevicesAreRefusedWithoutBlocking) {
  Fixture f;
  auto key = key_file_key(f.root + "/k");
  ASSERT_EQ(::mkfifo((f.root + "/fifo").c_str(), 0600), 0);
  auto r = read_protected_file(f.root + "/fifo", key.get(), 1 << 20, "a checkpoint");
  EXPECT_NE(r.error.find("FIFO"), std::string::npos) << r.error;
  auto z = read_protected_file("/dev/zero", key.get(), 1 << 20, "a checkpoint");
  EXPECT_FALSE(z.bytes);
  EXPECT_FALSE(write_protected_file("/dev/null", "x", key.get()).ok());
}

TEST(Keys, KeygenWritesAnOwnerOnlyKeyAndNeverReplacesOne) {
  Fixture f;
  const std::string k = f.root + "/key";
  ASSERT_TRUE(write_new_key_file(k).ok());
  struct stat st {};
  ASSERT_EQ(::stat(k.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_size, 32);
  const std::string first = slurp(k);
  auto again = write_new_key_file(k);
  EXPECT_FALSE(again.ok());
  EXPECT_NE(again.error().find("exists"), std::string::npos);
  EXPECT_EQ(slurp(k), first);
  ASSERT_TRUE(write_new_key_file(f.root + "/key2").ok());
  EXPECT_NE(slurp(f.root + "/key2"), first);  // random, not derived from anything
}

TEST(Keys, KeyFilesOthersCanReadOrOfTheWrongSizeAreRefused) {
  Fixture f;
  ASSERT_TRUE(write_new_key_file(f.root + "/k").ok());
  ASSERT_EQ(::chmod((f.root + "/k").c_str(), 0640), 0);
  auto a = SealingKey::load({f.root + "/k", ""});
  EXPECT_FALSE(a.key);
  EXPECT_NE(a.error.find("readable by group or others (mode 0640)"), std::string::npos) << a.error;
  EXPECT_NE(a.error.find("chmod 600"), std::string::npos) << a.error;
  f.write("/short", "0123456789", 0600);
  auto b = SealingKey::load({f.root + "/short", ""});
  EXPECT_NE(b.error.find("10 bytes, not a dlready key"), std::string::npos) << b.error;
  auto c = SealingKey::load({f.root + "/none", ""});
  EXPECT_NE(c.error.find("cannot open"), std::string::npos) << c.error;
  auto d = SealingKey::load({"", "DLREADY_TEST_UNSET_VARIABLE"});
  EXPECT_NE(d.error.find("not set"), std::string::npos) << d.error;
}

TEST(Keys, APassphraseSealsWithArgon2idAndAWrongOneIsRefused) {
  Fixture f;
  ::setenv("DLREADY_TEST_PASS", "correct horse battery staple", 1);
  auto k = SealingKey::load({"", "DLREADY_TEST_PASS"});
  ASSERT_TRUE(k.key) << k.error;
  ASSERT_TRUE(write_protected_file(f.root + "/m", "weights", k.key.get()).ok());
  EXPECT_EQ(slurp(f.root + "/m").find("correct horse"), std::string::npos);
  auto again = SealingKey::load({"", "DLREADY_TEST_PASS"});  // another process: another salt, same file opens
  auto r = read_protected_file(f.root + "/m", again.key.get(), 1 << 20, "a model");
  ASSERT_TRUE(r.bytes) << r.error;
  EXPECT_EQ(*r.bytes, "weights");
  ::setenv("DLREADY_TEST_PASS", "wrong", 1);
  auto wrong = SealingKey::load({"", "DLREADY_TEST_PASS"});
  auto w = read_protected_file(f.root + "/m", wrong.key.get(), 1 << 20, "a model");
  EXPECT_NE(w.error.find("a wrong passphrase"), std::string::npos) << w.error;
  auto file_key = key_file_key(f.root + "/k");
  auto x = read_protected_file(f.root + "/m", file_key.get(), 1 << 20, "a model");
  EXPECT_NE(x.error.find("sealed with a passphrase"), std::string::npos) << x.error;
  ::unsetenv("DLREADY_TEST_PASS");
}

TEST(Keys, RekeyReplacesTheFileWholeOrLeavesItAsItWas) {
  Fixture f;
  auto a = key_file_key(f.root + "/a"), b = key_file_key(f.root + "/b");
  const std::string content = pattern(150000);
  ASSERT_TRUE(write_protected_file(f.root + "/m", content, nullptr).ok());
  ASSERT_TRUE(rekey_file(f.root + "/m", nullptr, a.get()).ok());  // encrypt a plain file
  ASSERT_TRUE(rekey_file(f.root + "/m", a.get(), b.get()).ok());
  const std::string sealed_b = slurp(f.root + "/m");
  auto wrong = rekey_file(f.root + "/m", a.get(), a.get());
  EXPECT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().find("another key"), std::string::npos) << wrong.error();
  EXPECT_EQ(slurp(f.root + "/m"), sealed_b);  // unchanged
  auto back = read_protected_file(f.root + "/m", b.get(), 1 << 30, "a model");
  ASSERT_TRUE(back.bytes) << back.error;
  EXPECT_EQ(*back.bytes, content);
  ASSERT_TRUE(rekey_file(f.root + "/m", b.get(), nullptr).ok());  // --decrypt
  EXPECT_EQ(slurp(f.root + "/m"), content);
  for (const auto& entry : std::filesystem::directory_iterator(f.root))
    EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos) << "temp file left: " << entry.path();
}

// --- the audit log ---

std::vector<std::string> lines_of(const std::string& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}
void write_lines(const std::string& path, const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  spit(path, s);
}

void write_log(const std::string& path, int records, const std::string& sign_key = "") {
  auto log = AuditLog::open({path}, sign_key, {"dlready", "train", "--token", "s3cr3t", "--key-file", "/k"});
  ASSERT_TRUE(log.log) << log.error;
  ASSERT_TRUE(log.log->append("run_start", {{"n", 0}}).ok());
  for (int i = 1; i < records - 1; ++i) ASSERT_TRUE(log.log->append("checkpoint", {{"n", i}}).ok());
  ASSERT_TRUE(log.log->append("finish", {{"n", records - 1}}).ok());
}

TEST(AuditLog, AnIntactLogVerifiesAndHoldsWhoDidWhat) {
  Fixture f;
  const std::string p = f.root + "/audit.jsonl";
  write_log(p, 5);
  auto v = verify_audit_log(p, "");
  EXPECT_TRUE(v.intact) << v.problem;
  EXPECT_EQ(v.records, 5u);
  EXPECT_TRUE(v.notes.empty());
  auto first = nlohmann::json::parse(lines_of(p)[0]);
  EXPECT_EQ(first["seq"], 1);
  EXPECT_EQ(first["prev"], std::string(64, '0'));
  EXPECT_EQ(first["pid"], static_cast<long long>(::getpid()));
  EXPECT_FALSE(first["user"].get<std::string>().empty());
  EXPECT_FALSE(first["host"].get<std::string>().empty());
  EXPECT_EQ(first["command"], nlohmann::json({"dlready", "train", "--token", "***", "--key-file", "/k"}));
  EXPECT_EQ(slurp(p).find("s3cr3t"), std::string::npos);
}

TEST(AuditLog, EditsDeletionsInsertionsReorderingAndTruncationAreNamed) {
  Fixture f;
  const std::string p = f.root + "/audit.jsonl";
  write_log(p, 6);
  const auto good = lines_of(p);
  auto check = [&](const std::vector<std::string>& lines, size_t line, const std::string& says, const char* what) {
    write_lines(p, lines);
    auto v = verify_audit_log(p, "");
    EXPECT_FALSE(v.intact) << what;
    EXPECT_EQ(v.first_bad, line) << what << ": " << v.problem;
    EXPECT_NE(v.problem.find(says), std::string::npos) << what << ": " << v.problem;
  };
  auto edited = good;
  edited[2].replace(edited[2].find("\"n\":2"), 5, "\"n\":9");
  check(edited, 3, "edited", "a value changed");
  auto deleted = good;
  deleted.erase(deleted.begin() + 2);
  check(deleted, 3, "missing before it", "record 3 deleted");
  auto first_deleted = good;
  first_deleted.erase(first_deleted.begin());
  check(first_deleted, 1, "missing before it", "the first record deleted");
  auto swapped = good;
  std::swap(swapped[2], swapped[3]);
  check(swapped, 3, "missing before it", "records 3 and 4 swapped");
  auto repeated = good;
  repeated.insert(repeated.begin() + 3, good[2]);
  check(repeated, 4, "out of order", "record 3 repeated");
  // An inserted record with a recomputed hash and the right sequence number: the chain breaks.
  auto forged = nlohmann::json::parse(good[3]);
  forged["details"]["n"] = 42;
  forged.erase("hash");
  write_lines(p, {good[0], good[1], good[2]});
  ::unlink((p + ".head").c_str());  // the forger's own tool keeps no head file
  {
    auto log = AuditLog::open({p}, "", {"x"});
    ASSERT_TRUE(log.log->append("checkpoint", {{"n", 42}}).ok());
  }
  auto inserted = lines_of(p);
  inserted.insert(inserted.end(), good.begin() + 3, good.end());
  check(inserted, 5, "", "a record inserted");
  write_lines(p, good);
  std::string cut = slurp(p);
  spit(p, cut.substr(0, cut.size() - 20));
  auto v = verify_audit_log(p, "");
  EXPECT_FALSE(v.intact);
  EXPECT_EQ(v.first_bad, 6u);
  EXPECT_NE(v.problem.find("cut off"), std::string::npos) << v.problem;
  // Appending to a damaged log is refused instead of chaining to a broken record.
  auto log = AuditLog::open({p}, "", {"x"});
  auto st = log.log->append("run_start", {});
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.error().find("does not end in a whole record"), std::string::npos) << st.error();
  EXPECT_EQ(slurp(p), cut.substr(0, cut.size() - 20));
}

TEST(AuditLog, SignedRecordsVerifyOnlyWithTheirPublicKey) {
  Fixture f;
  ASSERT_TRUE(write_new_signing_key(f.root + "/sign").ok());
  ASSERT_TRUE(write_new_signing_key(f.root + "/other").ok());
  struct stat st {};
  ASSERT_EQ(::stat((f.root + "/sign").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  const std::string p = f.root + "/audit.jsonl";
  write_log(p, 4, f.root + "/sign");
  EXPECT_TRUE(verify_audit_log(p, f.root + "/sign.pub").intact);
  auto other = verify_audit_log(p, f.root + "/other.pub");
  EXPECT_FALSE(other.intact);
  EXPECT_EQ(other.first_bad, 1u);
  EXPECT_NE(other.problem.find("signature does not verify"), std::string::npos) << other.problem;
  // An edit whose hash is recomputed passes the chain but not the signature.
  auto lines = lines_of(p);
  auto r = nlohmann::json::parse(lines[3]);
  r["details"]["n"] = 99;
  r.erase("hash");
  r.erase("sig");
  lines.pop_back();
  write_lines(p, lines);
  ::unlink((p + ".head").c_str());
  {
    auto log = AuditLog::open({p}, "", {"x"});  // appended unsigned, by someone without the key
    ASSERT_TRUE(log.log->append("finish", {{"n", 99}}).ok());
  }
  EXPECT_TRUE(verify_audit_log(p, "").intact);  // the chain alone cannot tell
  auto v = verify_audit_log(p, f.root + "/sign.pub");
  EXPECT_EQ(v.first_bad, 4u);
  EXPECT_NE(v.problem.find("not signed"), std::string::npos) << v.problem;
  f.write("/bad.pub", "short");
  EXPECT_NE(verify_audit_log(p, f.root + "/bad.pub").problem.find("not an Ed25519 public key"), std::string::npos);
}

TEST(AuditLog, ConcurrentWritersNeitherLoseNorDuplicateARecord) {
  Fixture f;
  const std::string p = f.root + "/audit.jsonl";
  constexpr int kWriters = 4, kEach = 40;
  std::vector<pid_t> kids;
  for (int w = 0; w < kWriters; ++w) {
    pid_t pid = ::fork();
    if (pid == 0) {
      auto log = AuditLog::open({p}, "", {"writer"});
      for (int i = 0; i < kEach; ++i)
        if (!log.log->append("checkpoint", {{"writer", w}, {"i", i}}).ok()) ::_exit(1);
      ::_exit(0);
    }
    kids.push_back(pid);
  }
  for (pid_t k : kids) {
    int status = 0;
    ::waitpid(k, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  auto v = verify_audit_log(p, "");
  EXPECT_TRUE(v.intact) << v.problem;
  EXPECT_EQ(v.records, static_cast<size_t>(kWriters * kEach));
  std::set<std::pair<int, int>> seen;
  for (const auto& l : lines_of(p)) {
    auto j = nlohmann::json::parse(l);
    std::pair<int, int> id{j["details"]["writer"].get<int>(), j["details"]["i"].get<int>()};
    EXPECT_TRUE(seen.insert(id).second) << "duplicated: " << l;
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(kWriters * kEach));
}

TEST(AuditLog, SecretLookingValuesAreMaskedAndPathsAreKept) {
  EXPECT_EQ(mask_command_line({"dlready", "train", "--key-file", "/keys/k", "--passphrase-env", "PASS",
                               "--api-token=abc", "--password", "hunter2", "HF_TOKEN=xyz", "--epochs", "3"}),
            (std::vector<std::string>{"dlready", "train", "--key-file", "/keys/k", "--passphrase-env", "PASS",
                                      "--api-token=***", "--password", "***", "HF_TOKEN=***", "--epochs", "3"}));
}

TEST(AuditLog, AFileThatIsNoLogIsRefused) {
  Fixture f;
  auto log = AuditLog::open({"/dev/null"}, "", {"x"});  // refused when opened, before any work
  EXPECT_FALSE(log.log);
  EXPECT_NE(log.error.find("not a log file"), std::string::npos) << log.error;
  auto v = verify_audit_log(f.root + "/missing.jsonl", "");
  EXPECT_FALSE(v.intact);
  EXPECT_EQ(v.first_bad, 0u);
  f.write("/notjson.jsonl", "hello\n");
  auto w = verify_audit_log(f.root + "/notjson.jsonl", "");
  EXPECT_EQ(w.first_bad, 1u);
  EXPECT_NE(w.problem.find("not JSON"), std::string::npos);
}

// A log whose last records were cut off (head -3, or one record deleted from the end) no longer
// verifies: LOG.head names the last record written; signed with the log's key when it has one.
TEST(AuditLog, ALogWhoseEndWasCutOffIsNamed) {
  Fixture f;
  const std::string p = f.root + "/audit.jsonl";
  write_log(p, 6);
  auto good = lines_of(p);
  write_lines(p, {good[0], good[1], good[2]});
  auto v = verify_audit_log(p, "");
  EXPECT_FALSE(v.intact);
  EXPECT_NE(v.problem.find("the end of the log was cut off (records 4–6 are gone)"), std::string::npos) << v.problem;
  // Nor is it appended to as if it were whole (a resumed run, a launcher).
  auto st = AuditLog::open({p}, "", {"x"}).log->append("resume", {});
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.error().find("the end was cut off"), std::string::npos) << st.error();
  EXPECT_EQ(lines_of(p).size(), 3u);
  // Signed: deleting the last record and editing the head file is caught by the head's signature.
  ASSERT_TRUE(write_new_signing_key(f.root + "/sign").ok());
  const std::string q = f.root + "/signed.jsonl";
  write_log(q, 4, f.root + "/sign");
  EXPECT_TRUE(verify_audit_log(q, f.root + "/sign.pub").intact);
  auto lines = lines_of(q);
  lines.pop_back();
  write_lines(q, lines);
  auto head = nlohmann::json::parse(slurp(q + ".head"));
  head["seq"] = 3;
  head["hash"] = nlohmann::json::parse(lines.back())["hash"];
  spit(q + ".head", head.dump());
  auto w = verify_audit_log(q, f.root + "/sign.pub");
  EXPECT_FALSE(w.intact);
  EXPECT_NE(w.problem.find("signature does not verify"), std::string::npos) << w.problem;
  // A log from before head files: verified, with a note that a cut-off end cannot be told.
  ::unlink((p + ".head").c_str());
  auto old = verify_audit_log(p, "");
  EXPECT_TRUE(old.intact) << old.problem;
  ASSERT_FALSE(old.notes.empty());
  EXPECT_NE(old.notes.back().find("no head file"), std::string::npos) << old.notes.back();
}

// `dlready audit verify` on a log whose end was cut off, or whose head file was edited, says NOT
// intact and exits 1 (issue 45, defect 14: it exited 2, the unreadable status, with record 0).
TEST(AuditLog, VerifyExitsOneForALogWithABadHead) {
  Fixture f;
  const std::string p = f.root + "/audit.jsonl";
  write_log(p, 6);
  auto good = lines_of(p);
  write_lines(p, {good[0], good[1], good[2]});
  auto verify = [&](const std::string& log) {
    return run_command(std::string(DLREADY_BINARY) + " audit verify --json " + log + " 2>&1");
  };
  auto cut = verify(p);
  EXPECT_EQ(cut.status, 1) << cut.out;
  auto j = nlohmann::json::parse(cut.out);
  EXPECT_EQ(j["intact"], false);
  EXPECT_EQ(j["first_bad_record"], 4) << cut.out;
  spit(p + ".head", "{\"seq\": \"x\"}");
  auto edited = verify(p);
  EXPECT_EQ(edited.status, 1) << edited.out;
  EXPECT_NE(edited.out.find("not a head file"), std::string::npos) << edited.out;
  auto missing = verify(f.root + "/no-such.jsonl");
  EXPECT_EQ(missing.status, 2) << missing.out;
}

// A record that does not fit is not half written: the log stays as it was and says so.
TEST(AuditLog, AFailedAppendLeavesTheLogWhole) {
  Fixture f;
  const std::string p = f.root + "/audit.jsonl";
  write_log(p, 3);
  const std::string before = slurp(p);
  pid_t kid = ::fork();
  if (kid == 0) {
    // A file-size limit a few bytes past the log's end: the next record is cut short (EFBIG), as
    // on a full disk.
    ::signal(SIGXFSZ, SIG_IGN);
    rlimit lim{static_cast<rlim_t>(before.size() + 40), static_cast<rlim_t>(before.size() + 40)};
    ::setrlimit(RLIMIT_FSIZE, &lim);
    auto log = AuditLog::open({p}, "", {"x"});
    auto st = log.log->append("checkpoint", {{"n", std::string(200, 'x')}});
    bool said = !st.ok() && st.error().find("the log is as it was") != std::string::npos;
    ::_exit(said ? 0 : 1);
  }
  int status = 0;
  ::waitpid(kid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the append did not fail as it should";
  EXPECT_EQ(slurp(p), before);
  EXPECT_TRUE(verify_audit_log(p, "").intact);
}

// A link planted where the log goes is refused, not followed.
TEST(AuditLog, APlantedSymbolicLinkIsRefused) {
  Fixture f;
  f.write("/elsewhere", "");
  ASSERT_EQ(::symlink((f.root + "/elsewhere").c_str(), (f.root + "/audit.jsonl").c_str()), 0);
  auto log = AuditLog::open({f.root + "/audit.jsonl"}, "", {"x"});
  EXPECT_FALSE(log.log);
  EXPECT_NE(log.error.find("a symbolic link; refusing to follow it"), std::string::npos) << log.error;
  EXPECT_EQ(slurp(f.root + "/elsewhere"), "");
}

// One line nested 100,000 deep, or a gigantic one: "not intact" at once, never a crash.
TEST(AuditLog, DeepOrHugeRecordsAreRefusedNotACrash) {
  Fixture f;
  const std::string p = f.root + "/audit.jsonl";
  spit(p, "{\"a\":" + std::string(100000, '[') + std::string(100000, ']') + "}\n");
  auto out = command_output(std::string(DLREADY_BINARY) + " audit verify " + p + " 2>&1; echo rc=$?");
  EXPECT_NE(out.find("NOT intact: record 1: nested deeper than 64 levels"), std::string::npos) << out;
  EXPECT_NE(out.find("rc=1"), std::string::npos) << out;
  spit(p, std::string(8 << 20, 'x'));
  auto v = verify_audit_log(p, "");
  EXPECT_FALSE(v.intact);
  EXPECT_NE(v.problem.find("longer than any record dlready writes"), std::string::npos) << v.problem;
}

}  // namespace
}  // namespace dlready::test
