// `dlready verify`, `bench`, `export-model` and `eval`: options here, the work in the LibTorch module.
#pragma once
#include <CLI/CLI.hpp>

#include "core/exit_code.hpp"
#include "module_api/options.hpp"

namespace dlready {

void add_verify_command(CLI::App& app, VerifyOptions& opt);
void add_bench_command(CLI::App& app, BenchOptions& opt);
ExitCode run_verify(const VerifyOptions& opt);
ExitCode run_bench(const BenchOptions& opt);
void add_model_commands(CLI::App& app, ModelOptions& export_model, ModelOptions& eval, ModelOptions& quantize);
ExitCode run_model(const ModelOptions& opt);

}  // namespace dlready
