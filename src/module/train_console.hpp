// What `dlready train` shows on the human-readable stream: log lines and, on a terminal, one
// progress line redrawn in place, fitted to the terminal's width. Under `dlready launch` the rank's
// stdout is a pipe: the launcher says by DLREADY_PROGRESS=1 that it shows the bar on its terminal,
// and COLUMNS gives the room its "[rank 0] " prefix leaves.
#pragma once
#include <cstdio>

#include "train/trainer.hpp"

namespace dlready {

class TrainConsole {
 public:
  // `human`: null on the quiet ranks of a data-parallel run.
  TrainConsole(std::FILE* human, bool progress_wanted, int epochs);
  TrainConsole(const TrainConsole&) = delete;
  TrainConsole& operator=(const TrainConsole&) = delete;

  // log and progress hooks; they refer to this console, which must outlive the run.
  TrainHooks hooks();
  // Ends a progress line still shown, so that what follows (an error on stderr, the "^C" the
  // terminal echoed) starts on a line of its own.
  void end_progress();

 private:
  int columns() const;
  // After a write: a stdout that was closed (EPIPE) ends the output, said once on stderr.
  void flushed();
  std::FILE* human_;
  bool progress_;
  int epochs_;
  bool progress_shown_ = false;
  bool closed_ = false;
};

}  // namespace dlready
