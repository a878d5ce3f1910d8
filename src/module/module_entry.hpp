// The LibTorch module's one entry: a command name and its options as JSON text (see
// module_api/module_abi.hpp), dispatched to train, verify, bench or model.
#pragma once
#include <string>

#include "core/exit_code.hpp"
#include "module_api/options.hpp"

namespace dlready {

struct ModelWeights;  // train/model_files.hpp
class SealingKey;     // secure/secret_key.hpp

ExitCode run_module_command(const std::string& command, const std::string& options_json);

// `dlready train` inside the module: data, device, data-parallel session, training, summary.
ExitCode run_train_command(const TrainOptions& o);

// `dlready export-model`, `dlready eval` and `dlready quantize` inside the module.
ExitCode run_model_command(const ModelOptions& o);
// `dlready quantize` from the fp32 weights already read (quantize_entry.cpp).
// `key`: seal the int8 model with it (nullptr: plain safetensors).
ExitCode run_quantize_command(const ModelOptions& o, const ModelWeights& w, SealingKey* key);

}  // namespace dlready
