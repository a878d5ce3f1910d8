#include <fcntl.h>
#include <unistd.h>

#include "os/cloexec_pipe.hpp"

namespace dlready {

bool cloexec_pipe(int fds[2]) { return ::pipe2(fds, O_CLOEXEC) == 0; }

}  // namespace dlready
