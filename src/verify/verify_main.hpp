// `dlready verify` in the module: runs the check registry on the requested devices and ends with
// READY / NOT READY. The doctor runs first (it must probe the driver before CUDA is initialised
// here) so an unusable CUDA is explained in its words.
#pragma once
#include "core/exit_code.hpp"
#include "module_api/options.hpp"

namespace dlready {

ExitCode run_verify_command(const VerifyOptions& o);

}  // namespace dlready
