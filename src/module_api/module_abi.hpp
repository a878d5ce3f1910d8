// The boundary between the `dlready` binary (no LibTorch) and the LibTorch module
// libdlready_train.so. The module exports two C functions:
//   unsigned dlready_module_abi(void)  -> kModuleAbiVersion of the build it came from
//   int dlready_module_run(const char* command, const char* options_json)  -> an ExitCode
// The binary checks the version before the first call, so a stale or foreign module (or a
// DLREADY_TRAIN_MODULE pointing elsewhere) is refused with a message instead of being called with
// a layout it does not share. Only C types cross: the options travel as JSON text.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "module_api/options.hpp"

namespace dlready {

// Bump whenever the options' JSON, the commands or the entry points change meaning.
// 3: train --overwrite, verify --require-gpu (2026-12-03).
// 4: train --tensorboard (2026-12-03).
// 5: the "model" command (export-model, eval), train --init (2026-12-03).
// 6: the "model" command's quantize action (2026-12-03).
// 7: --key-file / --passphrase-env of train and the model commands, train's audit options (2026-12-04).
// 8: train's busy_sample, the binary's first reading for the thread count (2026-12-07).
inline constexpr unsigned kModuleAbiVersion = 8;
inline constexpr const char* kModuleAbiSymbol = "dlready_module_abi";
inline constexpr const char* kModuleRunSymbol = "dlready_module_run";
using ModuleAbiFn = unsigned (*)();
using ModuleRunFn = int (*)(const char* command, const char* options_json);

nlohmann::json to_json(const TrainOptions& o);
nlohmann::json to_json(const VerifyOptions& o);
nlohmann::json to_json(const BenchOptions& o);
nlohmann::json to_json(const ModelOptions& o);
// Throw nlohmann::json::exception or std::invalid_argument on a field of the wrong type or value.
TrainOptions train_options_from_json(const nlohmann::json& j);
VerifyOptions verify_options_from_json(const nlohmann::json& j);
BenchOptions bench_options_from_json(const nlohmann::json& j);
ModelOptions model_options_from_json(const nlohmann::json& j);

}  // namespace dlready
