// The run's checkpoint as LibTorch tensors: the file's layout is formats/checkpoint_format.hpp;
// with a key the archive is written sealed (secure/sealed_file.hpp): encrypted and authenticated.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/status.hpp"
#include "secure/secret_key.hpp"
#include "train/model.hpp"

namespace dlready {

struct Checkpoint {
  nlohmann::json meta;  // run state: epoch, step, options, metrics history, ...
  NamedTensors tensors; // float32, on the CPU
};

// Written atomically (the previous checkpoint survives a crash); fails naming what failed.
// `key`: seal it (nullptr: plaintext).
Status save_checkpoint(const std::string& path, const Checkpoint& ck, SealingKey* key = nullptr);

struct CheckpointLoad {
  std::optional<Checkpoint> checkpoint;
  std::string error;  // names the file and the problem (torn, tampered, malformed)
};
// `key`: the checkpoint must be sealed with it; nullptr: it must be plaintext.
CheckpointLoad load_checkpoint(const std::string& path, SealingKey* key = nullptr);
// Parses checkpoint bytes (exposed for tests and fuzzing).
CheckpointLoad parse_checkpoint(const std::string& bytes, const std::string& name);

}  // namespace dlready
