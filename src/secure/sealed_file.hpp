// Sealed files: any file dlready writes that holds weights (a checkpoint, an exported or quantized
// model), encrypted and authenticated with libsodium's secretstream (XChaCha20-Poly1305) in chunks
// of 64 KiB, so reading or re-keying one holds a chunk at a time, not a second copy of the file.
//
// Layout: an 88-byte header — "DLRSEAL1", version, key kind (key file or passphrase), chunk size,
// Argon2id limits and salt, the key's id, secretstream's header — then the chunks, each the
// ciphertext of chunk-size bytes (the last one shorter, tagged final) plus 17 bytes of tag. The
// whole header is additional data of every chunk: a changed byte anywhere is refused, a dropped,
// repeated or reordered chunk fails its tag, a cut-off file lacks the final tag.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.hpp"
#include "secure/secret_key.hpp"

namespace dlready {

inline constexpr char kSealedMagic[8] = {'D', 'L', 'R', 'S', 'E', 'A', 'L', '1'};
inline constexpr size_t kSealedHeaderBytes = 88;

bool is_sealed(std::string_view first_bytes);

struct ReadFile {
  std::optional<std::string> bytes;  // the plaintext
  std::string error;                 // "<path>: <what is wrong and what to do>"
  std::string key_id;                // a sealed file's key id
};

// Reads a file dlready wrote, sealed or not. With no key a sealed file is refused (naming its key
// id and the options that open it); with a key a plaintext file is refused (it was written without
// one). A regular file of at most max_bytes, as read_regular_file.
ReadFile read_protected_file(const std::string& path, SealingKey* key, uint64_t max_bytes, const std::string& kind);

// Writes `content` atomically: sealed with `key`, or as it is without one.
Status write_protected_file(const std::string& path, std::string_view content, SealingKey* key, mode_t mode = 0644);

// Opens sealed bytes held in memory (tests and the fuzz target); `name` names them in errors.
ReadFile unseal_bytes(std::string_view sealed, SealingKey& key, const std::string& name);

// `dlready rekey`: the file re-written atomically, from `old_key` (nullptr: it is plaintext) to
// `new_key` (nullptr: write plaintext), a chunk at a time, in place or to `out` ("" = in place;
// else `path` is left as it is). Nothing changes on any failure.
Status rekey_file(const std::string& path, SealingKey* old_key, SealingKey* new_key, const std::string& out = "");

// The key id in a sealed file's header (for `dlready rekey` and the audit log), or nullopt.
std::optional<std::string> sealed_key_id(const std::string& path);

}  // namespace dlready
