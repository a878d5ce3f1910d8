// The intra-op threads of train, eval and quantize: --threads when given, the environment's
// OMP_NUM_THREADS / MKL_NUM_THREADS when set (a launcher's ranks take one each), else LibTorch's
// default, lowered to the idle processors on a busy machine.
#pragma once
#include <optional>
#include <string>

#include "probe/linux/probes.hpp"

namespace dlready {

// Sets LibTorch's threads; returns what the header should say about the choice ("" = nothing).
std::string choose_threads(int requested);

// The same in two halves around work that fills the busy machine's sampling window (train loads
// its data meanwhile, instead of sleeping 150 ms): begin, work, finish.
struct PendingThreadChoice {
  bool decided = false;  // --threads or the environment decided: nothing to sample
  std::optional<BusySample> sample;  // on a machine that is not idle
};
// `started_sample`: the binary's reading taken before LibTorch loaded (TrainOptions::busy_sample;
// "" = none), used instead of a new one.
PendingThreadChoice begin_thread_choice(int requested, const std::string& started_sample = "");
std::string finish_thread_choice(const PendingThreadChoice& pending);

}  // namespace dlready
