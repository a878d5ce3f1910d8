#include "module/train_console.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "os/terminal.hpp"
#include "formats/metrics.hpp"

namespace dlready {

TrainConsole::TrainConsole(std::FILE* human, bool progress_wanted, int epochs) : human_(human), epochs_(epochs) {
  const char* launcher = std::getenv("DLREADY_PROGRESS");
  progress_ = progress_wanted && human_ &&
              (::isatty(::fileno(human_)) || (launcher && std::strcmp(launcher, "1") == 0));
}

int TrainConsole::columns() const { return terminal_columns(::fileno(human_)); }

TrainHooks TrainConsole::hooks() {
  TrainHooks hooks;
  if (!human_) return hooks;
  hooks.log = [this](const std::string& s) {
    if (closed_) return;
    std::fprintf(human_, "%s%s\n", progress_shown_ ? "\r\x1b[K" : "", s.c_str());
    progress_shown_ = false;
    flushed();
  };
  if (progress_)
    hooks.progress = [this](int epoch, size_t done, size_t total, double sps) {
      if (closed_) return;
      std::fprintf(human_, "\r\x1b[K%s", progress_line(epoch, epochs_, done, total, sps, columns()).c_str());
      progress_shown_ = true;
      flushed();
    };
  return hooks;
}

void TrainConsole::flushed() {
  if (std::fflush(human_) == 0 || errno != EPIPE || closed_) return;
  closed_ = true;  // `| head` went away: the run goes on, its results are in its files
  std::fprintf(stderr, "dlready train: stdout was closed (the end of a pipe went away): the output stops here, the "
                       "training goes on (metrics.jsonl and the checkpoint are written as usual)\n");
}

void TrainConsole::end_progress() {
  if (!progress_shown_ || closed_) return;
  std::fputc('\n', human_);
  std::fflush(human_);
  progress_shown_ = false;
}

}  // namespace dlready
