// Another program run with its output in a log file, optionally shown as it comes (an installer,
// a compiler): what `dlready setup` and `dlready module build` run.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

namespace dlready {

struct [[nodiscard]] Ran {
  int status = -1;  // exit status; 124 after the time limit; 127 when it could not start
  std::string tail;  // its last lines (stdout and stderr together)
  bool streamed = false;  // its lines were shown as they came
  bool interrupted = false;  // ended by Ctrl-C/SIGTERM (os/stop_signal.hpp), with what it started
};

// Runs argv with its output in `log`, for at most `seconds`; `stream`: shows each new line of it on
// `shown_on` as it comes (and, after 10 s without one, that it still runs).
Ran run_logged(const std::vector<std::string>& argv, const std::string& log, int seconds, bool stream = false,
               std::FILE* shown_on = stdout);

}  // namespace dlready
