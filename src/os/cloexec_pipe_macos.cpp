// macOS has no pipe2: the flag is set right after. The macOS build runs no other thread that
// starts programs between the two calls.
#include <fcntl.h>
#include <unistd.h>

#include "os/cloexec_pipe.hpp"

namespace dlready {

bool cloexec_pipe(int fds[2]) {
  if (::pipe(fds) != 0) return false;
  for (int i = 0; i < 2; ++i)
    if (::fcntl(fds[i], F_SETFD, FD_CLOEXEC) != 0) {
      ::close(fds[0]);
      ::close(fds[1]);
      return false;
    }
  return true;
}

}  // namespace dlready
