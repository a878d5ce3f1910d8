// The width of the terminal a stream writes to: its own size, else COLUMNS (set by dlready
// launch for its ranks' progress lines), else 80.
#pragma once

namespace dlready {

int terminal_columns(int fd);

}  // namespace dlready
