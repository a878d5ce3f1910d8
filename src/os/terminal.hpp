// The terminal a stream writes to: whether there is one, and its width (its own size, else COLUMNS
// — set by dlready launch for its ranks' progress lines —, else 80). terminal.cpp on POSIX systems,
// terminal_win32.cpp on Windows.
#pragma once

namespace dlready {

[[nodiscard]] bool is_terminal(int fd);
[[nodiscard]] int terminal_columns(int fd);

}  // namespace dlready
