#pragma once
#include <CLI/CLI.hpp>

#include "core/exit_code.hpp"
#include "module_api/options.hpp"

namespace dlready {

void add_train_command(CLI::App& app, TrainOptions& opt);
// Loads the LibTorch module and runs training; explains a load failure the doctor's way.
ExitCode run_train(const TrainOptions& opt);

}  // namespace dlready
