// `dlready verify` and `dlready bench`: options here, the work in the LibTorch module.
#pragma once
#include <CLI/CLI.hpp>

#include "verify/verify_options.hpp"

namespace dlready {

void add_verify_command(CLI::App& app, VerifyOptions& opt);
void add_bench_command(CLI::App& app, BenchOptions& opt);
int run_verify(const VerifyOptions& opt);
int run_bench(const BenchOptions& opt);

}  // namespace dlready
