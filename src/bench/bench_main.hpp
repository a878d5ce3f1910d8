// `dlready bench` in the module: GEMM, copy and training throughput on one device, and the
// launch-bound floor of the training step, as a table and as JSON (schema dlready.bench/1). Every
// figure is a median from the recipe in torch_runtime/measure.hpp.
#pragma once
#include "core/exit_code.hpp"
#include "module_api/options.hpp"

namespace dlready {

// `thread_note`: what the thread choice said (train's: fewer threads on a busy machine), "" if nothing.
ExitCode run_bench_command(const BenchOptions& o, const std::string& thread_note);

}  // namespace dlready
