// Ctrl-C (SIGINT) or SIGTERM while a StopOnSignal lives: the first asks the work to stop — the
// trainer at the next step boundary with a checkpoint (so `--resume` loses nothing), setup and
// module build by ending the program they run (os/process_runner.hpp forwards the signal to its
// process group, then kills it) and removing what they half-made; a second ends the process at
// once (the default action). `dlready launch` forwards both to every rank.
#pragma once
#include <signal.h>

namespace dlready {

class StopOnSignal {
 public:
  StopOnSignal();   // installs the handlers (and clears an earlier request)
  ~StopOnSignal();  // restores the previous handlers
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;
  bool requested() const;

 private:
  struct sigaction previous_int_ {}, previous_term_ {};
};

// Whether a stop was asked for while a StopOnSignal lives (false without one): what the process
// runner polls while a child runs.
[[nodiscard]] bool stop_signal_requested();

}  // namespace dlready
