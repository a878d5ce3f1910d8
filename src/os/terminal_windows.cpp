#include <io.h>
#include <windows.h>

#include <cstdlib>

#include "os/terminal.hpp"

namespace dlready {

bool is_terminal(int fd) { return ::_isatty(fd) != 0; }

int terminal_columns(int fd) {
  CONSOLE_SCREEN_BUFFER_INFO info{};
  HANDLE h = reinterpret_cast<HANDLE>(::_get_osfhandle(fd));
  if (h != INVALID_HANDLE_VALUE && ::GetConsoleScreenBufferInfo(h, &info)) {
    int width = info.srWindow.Right - info.srWindow.Left + 1;
    if (width > 0) return width;
  }
  if (const char* c = std::getenv("COLUMNS")) {
    int n = std::atoi(c);
    if (n > 0 && n < 10000) return n;
  }
  return 80;
}

}  // namespace dlready
