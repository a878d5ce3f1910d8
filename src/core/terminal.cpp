#include "core/terminal.hpp"

#include <sys/ioctl.h>

#include <cstdlib>

namespace dlready {

int terminal_columns(int fd) {
  winsize ws{};
  if (::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (const char* c = std::getenv("COLUMNS")) {
    int n = std::atoi(c);
    if (n > 0 && n < 10000) return n;
  }
  return 80;
}

}  // namespace dlready
