#include "probe/child_probe.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "core/posix_fs.hpp"
#include "core/text.hpp"

namespace dlready {

ChildResult run_child_probe(const ChildBody& body, int timeout_ms) {
  ChildResult r;
  auto t0 = std::chrono::steady_clock::now();
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    r.end = ChildResult::End::fork_failed;
    return r;
  }
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    r.end = ChildResult::End::fork_failed;
    return r;
  }
  if (pid == 0) {
    ::close(fds[0]);
    int out = fds[1];
    auto emit = [out](const std::string& k, const std::string& v) {
      std::string line = k + "=";
      for (char c : v) line += (c == '\n' ? ' ' : c);
      line += "\n";
      (void)write_fully(out, line);
    };
    int code = body(emit);
    ::_exit(code);  // no atexit handlers, no flushing of the parent's stdio buffers
  }
  ::close(fds[1]);
  std::string buf;
  bool timed_out = false;
  auto deadline = t0 + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    struct pollfd p {
      fds[0], POLLIN, 0
    };
    int n = ::poll(&p, 1, static_cast<int>(left));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      timed_out = n == 0;
      break;
    }
    char chunk[4096];
    ssize_t got = ::read(fds[0], chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // EOF: the child is done (or died)
    buf.append(chunk, static_cast<size_t>(got));
    if (buf.size() > (1u << 20)) break;  // a child that floods us is treated as done
  }
  ::close(fds[0]);
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    r.end = ChildResult::End::timed_out;
  } else if (WIFSIGNALED(status)) {
    r.end = ChildResult::End::signalled;
    r.code = WTERMSIG(status);
  } else {
    r.end = ChildResult::End::exited;
    r.code = WEXITSTATUS(status);
  }
  for (const auto& line : lines(buf)) {
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    auto& slot = r.values[line.substr(0, eq)];
    slot += (slot.empty() ? "" : ", ") + line.substr(eq + 1);
  }
  r.elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace dlready
