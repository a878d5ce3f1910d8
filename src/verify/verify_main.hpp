// `dlready verify` in the module: runs the check registry on the requested devices and ends with
// READY / NOT READY. The doctor runs first (it must probe the driver before CUDA is initialised)
// so an unusable CUDA is explained in its words; every device's checks run in child processes
// (isolated_checks.hpp), so a crash in one is a FAIL that names the signal and the library.
#pragma once
#include "core/exit_code.hpp"
#include "module_api/options.hpp"

namespace dlready {

ExitCode run_verify_command(const VerifyOptions& o);

}  // namespace dlready
