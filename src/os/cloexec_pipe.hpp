// A pipe whose two ends close when the process runs another program (a child must not keep the
// parent's end open). Linux makes it in one call; macOS has no pipe2.
#pragma once

namespace dlready {

[[nodiscard]] bool cloexec_pipe(int fds[2]);

}  // namespace dlready
