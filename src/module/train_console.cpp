#include "module/train_console.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "train/metrics.hpp"

namespace dlready {

TrainConsole::TrainConsole(std::FILE* human, bool progress_wanted, int epochs) : human_(human), epochs_(epochs) {
  const char* launcher = std::getenv("DLREADY_PROGRESS");
  progress_ = progress_wanted && human_ &&
              (::isatty(::fileno(human_)) || (launcher && std::strcmp(launcher, "1") == 0));
}

int TrainConsole::columns() const {
  winsize ws{};
  if (::ioctl(::fileno(human_), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (const char* c = std::getenv("COLUMNS")) {
    int n = std::atoi(c);
    if (n > 0 && n < 10000) return n;
  }
  return 80;
}

TrainHooks TrainConsole::hooks() {
  TrainHooks hooks;
  if (!human_) return hooks;
  hooks.log = [this](const std::string& s) {
    std::fprintf(human_, "%s%s\n", progress_shown_ ? "\r\x1b[K" : "", s.c_str());
    progress_shown_ = false;
    std::fflush(human_);
  };
  if (progress_)
    hooks.progress = [this](int epoch, size_t done, size_t total, double sps) {
      std::fprintf(human_, "\r\x1b[K%s", progress_line(epoch, epochs_, done, total, sps, columns()).c_str());
      progress_shown_ = true;
      std::fflush(human_);
    };
  return hooks;
}

void TrainConsole::end_progress() {
  if (!progress_shown_) return;
  std::fputc('\n', human_);
  std::fflush(human_);
  progress_shown_ = false;
}

}  // namespace dlready
