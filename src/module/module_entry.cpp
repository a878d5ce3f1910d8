#include "module/module_entry.hpp"

#include <c10/util/Logging.h>
#include <stdlib.h>

#include <csignal>

#include <cstdio>
#include <optional>

#include "bench/bench_main.hpp"
#include "module/thread_choice.hpp"
#include "os/fatal_signal.hpp"
#include "module_api/module_abi.hpp"
#include "verify/verify_main.hpp"

namespace dlready {
namespace {

// Options the module cannot read mean the binary and the module come from different builds.
template <class Options, class Parse, class Run>
ExitCode parse_then_run(const std::string& command, const std::string& text, Parse parse, Run run) {
  std::optional<Options> o;
  try {
    o = parse(nlohmann::json::parse(text));
  } catch (const std::exception& e) {
    std::fprintf(stderr,
                 "dlready %s: the LibTorch module does not understand the options it was given (%s): the binary and "
                 "the module come from different builds; rebuild both with ./scripts/setup.sh\n",
                 command.c_str(), e.what());
    return ExitCode::cannot_load;
  }
  return run(*o);
}

}  // namespace

ExitCode run_module_command(const std::string& command, const std::string& options_json) {
  // c10's own log lines (c10d's connection retries, each with a C++ stack trace) would bury
  // dlready's one-line explanation of the same failure: they are shown when asked for with
  // TORCH_CPP_LOG_LEVEL=WARNING (or INFO), not by default.
  ::setenv("TORCH_CPP_LOG_LEVEL", "FATAL", /*overwrite=*/0);
  c10::initLogging();
  // A fatal signal becomes one line naming the command, its stage and the library (fatal_signal.hpp).
  for (const char* known : {"train", "verify", "bench"})
    if (command == known) install_fatal_signal_report(known);
  set_fatal_signal_stage("starting");
  // `dlready train ... | head`: a closed stdout stops the output, never the work (the console says so once).
  ::signal(SIGPIPE, SIG_IGN);
  if (command == "train")
    return parse_then_run<TrainOptions>(command, options_json, train_options_from_json, run_train_command);
  if (command == "verify")
    return parse_then_run<VerifyOptions>(command, options_json, verify_options_from_json, run_verify_command);
  if (command == "model")
    return parse_then_run<ModelOptions>(command, options_json, model_options_from_json, run_model_command);
  if (command == "bench")
    return parse_then_run<BenchOptions>(command, options_json, bench_options_from_json, [](const BenchOptions& o) {
      return run_bench_command(o, choose_threads(o.threads));  // the same choice as train's
    });
  std::fprintf(stderr, "dlready: the LibTorch module has no command '%s': rebuild both with ./scripts/setup.sh\n",
               command.c_str());
  return ExitCode::cannot_load;
}

}  // namespace dlready
