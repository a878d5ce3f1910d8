// The project's own checkpoint archive: float32 tensors keyed by name (model parameters and
// optimizer state), a JSON header for the rest of the run state, and a BLAKE2b checksum over
// everything. Layout: "DLRCKPT1" | u64 header length (LE) | header JSON | tensor bytes | 32-byte
// checksum. Not LibTorch's archive format, so checkpoints survive LibTorch version changes; bytes,
// shapes and JSON only (train/checkpoint converts to and from LibTorch tensors and seals the file),
// so the fuzz build and the LibTorch-free tests reach it.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "formats/safetensors.hpp"

namespace dlready {

// `tensors`: dtype F32, bytes little-endian and row-major, each name once.
std::string serialize_checkpoint(const nlohmann::json& meta, const std::vector<RawTensor>& tensors);

struct CheckpointContent {
  nlohmann::json meta;              // run state: epoch, step, options, metrics history, ...
  std::vector<RawTensor> tensors;   // F32, in the file's order
  std::string error;                // names the file and the problem (torn, tampered, malformed); "" = read
};
// A short or foreign file, a checksum that does not match, a header that is not the format, a
// tensor whose shape does not fit its bytes or the file, a name twice, a NaN or infinity: `error`.
CheckpointContent parse_checkpoint_bytes(const std::string& bytes, const std::string& name);

}  // namespace dlready
