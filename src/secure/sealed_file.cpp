#include "secure/sealed_file.hpp"

#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <memory>

#include "os/atomic_file.hpp"
#include "os/bounded_file.hpp"
#include "os/posix_fs.hpp"
#include "secure/sodium_init.hpp"

namespace dlready {
namespace {

constexpr uint8_t kVersion = 1;
constexpr uint32_t kChunk = 64 * 1024;
constexpr uint32_t kMaxChunk = 16u << 20;  // a header may not make us allocate more per chunk
constexpr size_t kTag = crypto_secretstream_xchacha20poly1305_ABYTES;
static_assert(crypto_secretstream_xchacha20poly1305_HEADERBYTES == 24);
static_assert(crypto_secretstream_xchacha20poly1305_KEYBYTES == kKeyBytes);

void put_le(unsigned char* p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
uint64_t get_le(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

// The header's fields (layout in sealed_file.hpp): offsets into the 88 bytes.
struct Header {
  KeyDerivation derivation;
  uint32_t chunk = kChunk;
  unsigned char key_id[8] = {};
  unsigned char stream[24] = {};
  unsigned char bytes[kSealedHeaderBytes] = {};  // as written: the additional data of every chunk

  void encode() {
    std::memset(bytes, 0, sizeof bytes);
    std::memcpy(bytes, kSealedMagic, 8);
    bytes[8] = kVersion;
    bytes[9] = static_cast<unsigned char>(derivation.kind);
    put_le(bytes + 12, chunk, 4);
    put_le(bytes + 16, derivation.opslimit, 8);
    put_le(bytes + 24, derivation.memlimit, 8);
    std::memcpy(bytes + 32, derivation.salt.data(), kSaltBytes);
    std::memcpy(bytes + 48, key_id, 8);
    std::memcpy(bytes + 64, stream, 24);
  }
  // What is wrong with the header, if anything (when nothing, the fields are set).
  [[nodiscard]] Status decode(const unsigned char* b) {
    std::memcpy(bytes, b, sizeof bytes);
    if (std::memcmp(b, kSealedMagic, 8) != 0) return Status::failure("not a sealed file");
    if (b[8] > kVersion) return Status::failure("sealed by a newer dlready (format " + std::to_string(b[8]) + "); update dlready");
    if (b[8] != kVersion)
      return Status::failure("a sealed-file format (" + std::to_string(b[8]) + ") no dlready writes: the header is damaged or edited");
    if (b[9] != 1 && b[9] != 2) return Status::failure("damaged header (unknown key kind " + std::to_string(b[9]) + ")");
    derivation.kind = static_cast<KeyKind>(b[9]);
    chunk = static_cast<uint32_t>(get_le(b + 12, 4));
    if (chunk == 0 || chunk > kMaxChunk) return Status::failure("damaged header (chunk size " + std::to_string(chunk) + ")");
    derivation.opslimit = get_le(b + 16, 8);
    derivation.memlimit = get_le(b + 24, 8);
    std::memcpy(derivation.salt.data(), b + 32, kSaltBytes);
    std::memcpy(key_id, b + 48, 8);
    std::memcpy(stream, b + 64, 24);
    return {};
  }
  std::string key_id_hex() const {
    char hex[17];
    sodium_bin2hex(hex, sizeof hex, key_id, sizeof key_id);
    return hex;
  }
};

// The first 8 bytes of key_id() as binary (the header keeps 8 bytes, the id shows them as hex).
void binary_key_id(const unsigned char* key, unsigned char out[8]) {
  std::string hex = key_id(key);
  sodium_hex2bin(out, 8, hex.data(), hex.size(), nullptr, nullptr, nullptr);
}

// Where a file's content goes: as it is, or sealed chunk by chunk. Either way into an atomic writer.
class ContentWriter {
 public:
  virtual ~ContentWriter() = default;
  virtual Status add(std::string_view bytes) = 0;
  virtual Status finish() = 0;  // the last chunk, then the rename
};

class PlainWriter : public ContentWriter {
 public:
  explicit PlainWriter(std::unique_ptr<AtomicFileWriter> out) : out_(std::move(out)) {}
  Status add(std::string_view bytes) override { return out_->append(bytes); }
  Status finish() override { return out_->commit(); }

 private:
  std::unique_ptr<AtomicFileWriter> out_;
};

class SealWriter : public ContentWriter {
 public:
  SealWriter(std::unique_ptr<AtomicFileWriter> out, SealingKey& key, std::string& error) : out_(std::move(out)) {
    header_.derivation = key.new_file_derivation();
    const unsigned char* k = key.key_for(header_.derivation, error);
    if (!k) return;
    binary_key_id(k, header_.key_id);
    crypto_secretstream_xchacha20poly1305_init_push(&state_, header_.stream, k);
    header_.encode();
    if (auto st = out_->append(std::string_view(reinterpret_cast<const char*>(header_.bytes), sizeof header_.bytes)); !st)
      error = st.error();
  }
  ~SealWriter() override { sodium_memzero(&state_, sizeof state_); }
  Status add(std::string_view bytes) override {
    while (!bytes.empty()) {
      // A full chunk waits until more arrives: only then is it known not to be the last.
      if (pending_.size() == header_.chunk)
        if (auto st = push(0); !st) return st;
      size_t take = std::min<size_t>(bytes.size(), header_.chunk - pending_.size());
      pending_.append(bytes.substr(0, take));
      bytes.remove_prefix(take);
    }
    return {};
  }
  Status finish() override {
    if (auto st = push(crypto_secretstream_xchacha20poly1305_TAG_FINAL); !st) return st;
    return out_->commit();
  }

 private:
  Status push(unsigned char tag) {
    std::string c(pending_.size() + kTag, '\0');
    crypto_secretstream_xchacha20poly1305_push(&state_, reinterpret_cast<unsigned char*>(c.data()), nullptr,
                                               reinterpret_cast<const unsigned char*>(pending_.data()), pending_.size(),
                                               header_.bytes, sizeof header_.bytes, tag);
    sodium_memzero(pending_.data(), pending_.size());
    pending_.clear();
    return out_->append(c);
  }
  std::unique_ptr<AtomicFileWriter> out_;
  Header header_;
  crypto_secretstream_xchacha20poly1305_state state_{};
  std::string pending_;
};

struct Writer {
  std::unique_ptr<ContentWriter> writer;
  std::string error;
};
Writer open_writer(const std::string& path, SealingKey* key, mode_t mode) {
  auto opened = AtomicFileWriter::open(path, mode);
  if (!opened.writer) return {nullptr, opened.error};
  if (!key) return {std::make_unique<PlainWriter>(std::move(opened.writer)), ""};
  std::string error;
  auto w = std::make_unique<SealWriter>(std::move(opened.writer), *key, error);
  if (!error.empty()) return {nullptr, path + ": " + error};
  return {std::move(w), ""};
}

// Bytes from a file or from memory: read(buf, n) fills up to n bytes, 0 at the end, -1 on error.
using Reader = std::function<ssize_t(unsigned char* buf, size_t n)>;

ssize_t read_full(const Reader& read, unsigned char* buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(buf + got, n - got);
    if (r < 0) return -1;
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  return static_cast<ssize_t>(got);
}

// Opens a sealed stream: every chunk authenticated before its plaintext reaches `sink`. The error
// names the first thing wrong and its likely cause; `name` starts it.
Status unseal(const Reader& read, const std::string& name, SealingKey& key,
              const std::function<Status(std::string_view)>& sink, std::string& key_id_out) {
  unsigned char raw[kSealedHeaderBytes];
  ssize_t got = read_full(read, raw, sizeof raw);
  if (got < 0) return Status::failure(name + ": read failed (" + std::strerror(errno) + ")");
  if (static_cast<size_t>(got) < sizeof raw)
    return Status::failure(name + ": truncated (" + std::to_string(got) +
                           " bytes: not even a header)");
  Header h;
  if (auto st = h.decode(raw); !st) return Status::failure(name + ": " + st.error());
  key_id_out = h.key_id_hex();
  std::string why;
  const unsigned char* k = key.key_for(h.derivation, why);
  if (!k) return Status::failure(name + ": cannot be opened: " + why);
  unsigned char mine[8];
  binary_key_id(k, mine);
  if (sodium_memcmp(mine, h.key_id, 8) != 0)
    return Status::failure(
        name + ": sealed with another key (key id " + h.key_id_hex() + "; " + key.description() +
        " has id " + key_id(k) +
        (h.derivation.kind == KeyKind::passphrase ? ": a wrong passphrase" : "") +
        "), or its header is damaged; refused, the file is left as it is");
  crypto_secretstream_xchacha20poly1305_state st;
  if (crypto_secretstream_xchacha20poly1305_init_pull(&st, h.stream, k) != 0)
    return Status::failure(name + ": damaged header");
  std::string c(h.chunk + kTag, '\0'), p(h.chunk, '\0');
  for (uint64_t chunk = 1;; ++chunk) {
    ssize_t n = read_full(read, reinterpret_cast<unsigned char*>(c.data()), c.size());
    if (n < 0) return Status::failure(name + ": read failed (" + std::strerror(errno) + ")");
    if (n == 0)
      return Status::failure(name + ": truncated after chunk " + std::to_string(chunk - 1) +
                             " (the final chunk is missing); refused");
    unsigned long long plen = 0;
    unsigned char tag = 0;
    if (crypto_secretstream_xchacha20poly1305_pull(&st, reinterpret_cast<unsigned char*>(p.data()), &plen, &tag,
                                                   reinterpret_cast<unsigned char*>(c.data()), static_cast<size_t>(n),
                                                   h.bytes, sizeof h.bytes) != 0) {
      sodium_memzero(&st, sizeof st);
      bool short_chunk = static_cast<size_t>(n) < c.size();
      return Status::failure(
          name + ": chunk " + std::to_string(chunk) + " fails authentication: " +
          (chunk == 1    ? "the header or the first chunk was altered"
           : short_chunk ? "the file is truncated or was altered"
                         : "the file was altered, or chunks were dropped, repeated or reordered") +
          "; refused, the file is left as it is");
    }
    if (auto s = sink(std::string_view(p.data(), static_cast<size_t>(plen))); !s) return s;
    if (tag == crypto_secretstream_xchacha20poly1305_TAG_FINAL) break;
    if (static_cast<size_t>(n) < c.size())
      return Status::failure(name + ": truncated in chunk " + std::to_string(chunk + 1) +
                             " (the final chunk is missing); refused");
  }
  sodium_memzero(&st, sizeof st);
  sodium_memzero(p.data(), p.size());
  unsigned char extra;
  if (read_full(read, &extra, 1) != 0)
    return Status::failure(
        name + ": data after the final chunk (appended to, or two files joined); refused");
  return {};
}

// An opened regular file of at most max_bytes, or the error.
struct OpenedFd {
  int fd = -1;
  std::string error;
};
OpenedFd open_regular(const std::string& path, uint64_t max_bytes, const std::string& kind) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return {-1, path + ": cannot open (" + std::strerror(errno) + ")"};
  struct stat st {};
  std::string error;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    error = path + ": " + file_kind(st.st_mode) + ", not " + kind + " (a regular file is needed)";
  else if (static_cast<uint64_t>(st.st_size) > max_bytes)
    error = path + ": " + std::to_string(st.st_size) + " bytes, more than " + kind + " can be";
  if (!error.empty()) {
    ::close(fd);
    return {-1, error};
  }
  return {fd, ""};
}

Reader fd_reader(int fd) {
  return [fd](unsigned char* buf, size_t n) -> ssize_t {
    for (;;) {
      ssize_t r = ::read(fd, buf, n);
      if (r < 0 && errno == EINTR) continue;
      return r;
    }
  };
}

struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

bool is_sealed(std::string_view first_bytes) {
  return first_bytes.size() >= sizeof kSealedMagic && std::memcmp(first_bytes.data(), kSealedMagic, 8) == 0;
}

ReadFile read_protected_file(const std::string& path, SealingKey* key, uint64_t max_bytes, const std::string& kind) {
  ensure_sodium();
  auto opened = open_regular(path, max_bytes, kind);
  if (opened.fd < 0) return {std::nullopt, opened.error, ""};
  FdCloser closer{opened.fd};
  auto read = fd_reader(opened.fd);
  unsigned char head[8] = {};
  ssize_t n = read_full(read, head, sizeof head);
  std::string_view first(reinterpret_cast<const char*>(head), n > 0 ? static_cast<size_t>(n) : 0);
  ::lseek(opened.fd, 0, SEEK_SET);
  ReadFile out;
  if (is_sealed(first) && !key) {
    auto id = sealed_key_id(path);
    out.error = path + ": encrypted (key id " + id.value_or("?") + "): give its key with --key-file KEY (or "
                "DLREADY_KEY_FILE), or --passphrase-env VAR for a passphrase";
    return out;
  }
  if (!is_sealed(first) && key) {
    out.error = path + ": not encrypted, and " + key->description() + " was given: it was written without a key. "
                "Drop the key option (and DLREADY_KEY_FILE), or encrypt the file: dlready rekey " + path +
                " --new-key-file KEY";
    return out;
  }
  if (!key) {  // a plain file: the project's bounded reader (it never reads past max_bytes)
    auto plain = read_regular_file(path, max_bytes, kind);
    return {std::move(plain.bytes), plain.error, ""};
  }
  std::string content;
  auto sink = [&](std::string_view b) -> Status {
    content.append(b);
    return {};
  };
  out.error = unseal(read, path, *key, sink, out.key_id).error();
  if (out.error.empty()) out.bytes = std::move(content);
  return out;
}

Status write_protected_file(const std::string& path, std::string_view content, SealingKey* key, mode_t mode) {
  ensure_sodium();
  auto w = open_writer(path, key, mode);
  if (!w.writer) return Status::failure(w.error);
  if (auto st = w.writer->add(content); !st) return st;
  return w.writer->finish();
}

ReadFile unseal_bytes(std::string_view sealed, SealingKey& key, const std::string& name) {
  ensure_sodium();
  size_t at = 0;
  Reader read = [&](unsigned char* buf, size_t n) -> ssize_t {
    size_t take = std::min(n, sealed.size() - at);
    std::memcpy(buf, sealed.data() + at, take);
    at += take;
    return static_cast<ssize_t>(take);
  };
  std::string content;
  ReadFile out;
  out.error = unseal(
                  read, name, key,
                  [&](std::string_view b) -> Status {
                    content.append(b);
                    return {};
                  },
                  out.key_id)
                  .error();
  if (out.error.empty()) out.bytes = std::move(content);
  return out;
}

Status rekey_file(const std::string& path, SealingKey* old_key, SealingKey* new_key, const std::string& out) {
  ensure_sodium();
  constexpr uint64_t kAnySize = uint64_t{1} << 50;
  auto opened = open_regular(path, kAnySize, "a file to re-key");
  if (opened.fd < 0) return Status::failure(opened.error);
  FdCloser closer{opened.fd};
  auto read = fd_reader(opened.fd);
  unsigned char head[8] = {};
  ssize_t n = read_full(read, head, sizeof head);
  bool sealed = is_sealed(std::string_view(reinterpret_cast<const char*>(head), n > 0 ? static_cast<size_t>(n) : 0));
  ::lseek(opened.fd, 0, SEEK_SET);
  if (sealed && !old_key)
    return Status::failure(path + ": encrypted (key id " + sealed_key_id(path).value_or("?") +
                           "): give its current key with --key-file or --passphrase-env");
  if (!sealed && old_key)
    return Status::failure(path + ": not encrypted, yet " + old_key->description() +
                           " was given as its current key: drop --key-file/--passphrase-env to encrypt a plain file");
  struct stat st {};
  mode_t mode = ::fstat(opened.fd, &st) == 0 ? (st.st_mode & 0777) : 0644;
  auto w = open_writer(out.empty() ? path : out, new_key, mode);
  if (!w.writer) return Status::failure(w.error);
  auto sink = [&](std::string_view b) { return w.writer->add(b); };
  if (sealed) {
    std::string id;
    if (Status why = unseal(read, path, *old_key, sink, id); !why.ok()) return why;
  } else {
    std::string buf(64 * 1024, '\0');
    for (;;) {
      ssize_t r = read(reinterpret_cast<unsigned char*>(buf.data()), buf.size());
      if (r < 0) return Status::failure(path + ": read failed (" + std::strerror(errno) + ")");
      if (r == 0) break;
      if (auto s = sink(std::string_view(buf.data(), static_cast<size_t>(r))); !s) return s;
    }
  }
  return w.writer->finish();  // the target is replaced only now, whole
}

std::optional<std::string> sealed_key_id(const std::string& path) {
  auto opened = open_regular(path, uint64_t{1} << 50, "a sealed file");
  if (opened.fd < 0) return std::nullopt;
  FdCloser closer{opened.fd};
  unsigned char raw[kSealedHeaderBytes];
  if (read_full(fd_reader(opened.fd), raw, sizeof raw) != static_cast<ssize_t>(sizeof raw)) return std::nullopt;
  Header h;
  if (!h.decode(raw)) return std::nullopt;
  return h.key_id_hex();
}

}  // namespace dlready
