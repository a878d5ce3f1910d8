// The LibTorch commands (train, verify, bench) live in one module, libdlready_train.so, loaded at
// run time so that a missing or broken LibTorch/CUDA library never kills the program with a raw
// loader error: the user gets the library that failed, the doctor's diagnosis, and the fix. The
// module's ABI version is checked before anything is called (module_api/module_abi.hpp).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "core/exit_code.hpp"

namespace dlready {

// Runs `command` in the module with its options (sent as JSON text). ExitCode::cannot_load — the
// same for every command — when the module cannot be loaded or is from another build (explained on
// stderr as "dlready <command>: ..."); ExitCode::usage when an option is not valid UTF-8 (a path
// the module could not be handed unchanged).
ExitCode run_torch_module(const std::string& command, const nlohmann::json& options);

// Where the module is: DLREADY_TRAIN_MODULE, else beside this binary, else <prefix>/lib/dlready.
std::string train_module_path();

}  // namespace dlready
