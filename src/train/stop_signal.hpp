// Ctrl-C (SIGINT) or SIGTERM during `dlready train`: the first asks the trainer to stop at the
// next step boundary with a checkpoint, so `--resume` loses nothing; a second ends the process
// at once (the default action). `dlready launch` forwards both to every rank.
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

}  // namespace dlready
