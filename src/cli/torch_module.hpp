// The LibTorch commands (train, verify, bench) live in one module, libdlready_train.so, loaded at
// run time so that a missing or broken LibTorch/CUDA library never kills the program with a raw
// loader error: the user gets the library that failed, the doctor's diagnosis, and the fix. The
// module's ABI version is checked before anything is called (module_api/module_abi.hpp).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "core/exit_code.hpp"
#include "probe/gather.hpp"
#include "setup/module_build.hpp"

namespace dlready {

// Runs `command` in the module with its options (sent as JSON text), and ends the process with the
// module's exit status once it has run (LibTorch's static teardown skipped). ExitCode::cannot_load — the
// same for every command — when the module cannot be loaded or is from another build (explained on
// stderr as "dlready <command>: ..."); ExitCode::usage when an option is not valid UTF-8 (a path
// the module could not be handed unchanged).
ExitCode run_torch_module(const std::string& command, const nlohmann::json& options);

// Where the module is, and for a wheel-installed dlready what it is built against.
struct ModuleLocation {
  std::string path;                 // the library to load ("" when a wheel's dlready finds no torch)
  std::optional<std::string> kit;   // the wheel's module sources: the module is built into the cache
  std::optional<TorchBuild> torch;  // the user's torch it is built against (kit only)
  std::string problem;              // kit only: why it cannot be loaded as it is ("" = built for this torch)
};

// DLREADY_TRAIN_MODULE, else beside this binary, else <prefix>/lib/dlready, else (a wheel-installed
// dlready) the module cached for the user's torch (setup/module_build.hpp).
ModuleLocation locate_train_module();
std::string train_module_path();
// The build of a wheel-installed dlready's module for `loc` (its kit and torch), into the cache.
ModuleBuildRequest module_build_request(const ModuleLocation& loc);
// What the doctor, snapshot and capture say about the module `dlready train` would load.
void describe_own_module(GatherOptions& opt);

}  // namespace dlready
