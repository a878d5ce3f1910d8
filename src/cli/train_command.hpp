#pragma once
#include <CLI/CLI.hpp>

#include "train/train_options.hpp"

namespace dlready {

void add_train_command(CLI::App& app, TrainOptions& opt);
// Loads the LibTorch module and runs training; explains a load failure the doctor's way.
int run_train(const TrainOptions& opt);

}  // namespace dlready
