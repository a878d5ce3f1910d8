#include "os/process_runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "core/text.hpp"
#include "os/cloexec_pipe.hpp"
#include "os/stop_signal.hpp"

namespace dlready {

namespace {

using Clock = std::chrono::steady_clock;

ChildEnd ended(int status) {
  ChildEnd e;
  if (WIFSIGNALED(status)) {
    e.how = ChildEnd::How::signalled;
    e.code = WTERMSIG(status);
  } else {
    e.how = ChildEnd::How::exited;
    e.code = WEXITSTATUS(status);
  }
  return e;
}

void reap(pid_t pid, int& status) {
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

// A stop was asked for (Ctrl-C): the child's group gets SIGINT, as a terminal would have sent it
// (pip, cmake and ninja clean up on it), then SIGKILL after `grace`; reaped either way.
void end_on_stop(pid_t pid, bool own_group, int& status) {
  constexpr auto grace = std::chrono::seconds(5);
  if (own_group) signal_process_group(pid, SIGINT);
  else ::kill(pid, SIGINT);
  for (auto until = Clock::now() + grace; Clock::now() < until;) {
    pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) {
      if (own_group) signal_process_group(pid, SIGKILL);  // what it started and left behind
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (own_group) signal_process_group(pid, SIGKILL);
  ::kill(pid, SIGKILL);
  reap(pid, status);
}

enum class PipeRead { data, nothing, closed };

// Reads what the pipe holds, waiting at most `wait_ms`; closed: EOF, or the reader asked to stop.
PipeRead read_pipe(int fd, int wait_ms, const std::function<bool(std::string_view)>& on_output) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, wait_ms) <= 0) return PipeRead::nothing;  // nothing yet (or EINTR: next round)
  char chunk[4096];
  ssize_t got = ::read(fd, chunk, sizeof chunk);
  if (got < 0) return errno == EINTR || errno == EAGAIN ? PipeRead::nothing : PipeRead::closed;
  if (got == 0 || !on_output(std::string_view(chunk, static_cast<size_t>(got)))) return PipeRead::closed;
  return PipeRead::data;
}

// The parent's side: the pipe read, the child waited for, killed at the deadline.
ChildEnd watch(pid_t pid, int pipe_fd, const ForkOptions& o, Clock::time_point t0) {
  auto deadline = t0 + std::chrono::milliseconds(o.timeout_ms);
  int status = 0;
  bool exited = false;
  int nap_ms = 1;  // without a pipe to wait on: 1, 2, 4, ... 50 ms, so a quick child is reaped at once
  for (;;) {
    pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done < 0 && errno != EINTR) {  // not ours to wait for (reaped elsewhere): how it ended is unknown
      if (pipe_fd >= 0) ::close(pipe_fd);
      return {};
    }
    exited = exited || done == pid;
    if (exited && pipe_fd >= 0) {  // only what it left in the pipe (a grandchild may hold it open)
      while (read_pipe(pipe_fd, 0, o.on_output) == PipeRead::data) {
      }
      ::close(pipe_fd);
      pipe_fd = -1;
    }
    if (exited) break;
    if (stop_signal_requested()) {
      if (pipe_fd >= 0) ::close(pipe_fd);
      end_on_stop(pid, o.own_group, status);
      ChildEnd e;
      e.how = ChildEnd::How::interrupted;
      e.elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      return e;
    }
    int tick = 50;
    if (o.timeout_ms > 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) break;
      tick = static_cast<int>(std::min<long long>(tick, left));
    }
    if (pipe_fd >= 0 && read_pipe(pipe_fd, tick, o.on_output) == PipeRead::closed) {
      ::close(pipe_fd);  // EOF or enough: from now on the child is only waited for
      pipe_fd = -1;
    } else if (pipe_fd < 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min(nap_ms, tick)));
      nap_ms = std::min(nap_ms * 2, 50);
    }
    if (o.while_running) o.while_running(pid);
  }
  if (pipe_fd >= 0) ::close(pipe_fd);
  ChildEnd e;
  if (exited) {
    e = ended(status);
  } else {
    if (o.own_group) signal_process_group(pid, SIGKILL);
    ::kill(pid, SIGKILL);  // also before it made its group
    reap(pid, status);
    e.how = ChildEnd::How::timed_out;
  }
  if (o.while_running) o.while_running(pid);
  e.elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  return e;
}

}  // namespace

int ChildEnd::shell_status() const {
  switch (how) {
    case How::exited: return code;
    case How::signalled: return 128 + code;
    case How::timed_out: return 124;
    case How::interrupted: return 130;
    case How::not_started: return 127;
  }
  return 127;
}

ChildEnd run_forked(const std::function<int(int out)>& in_child, const ForkOptions& o) {
  auto t0 = Clock::now();
  int fds[2] = {-1, -1};
  if (o.on_output && !cloexec_pipe(fds)) return {};
  pid_t pid = ::fork();
  if (pid == 0) {
    if (fds[0] >= 0) ::close(fds[0]);
    if (o.own_group) ::setpgid(0, 0);
    ::_exit(in_child(fds[1]));
  }
  if (fds[1] >= 0) ::close(fds[1]);
  if (pid < 0) {
    if (fds[0] >= 0) ::close(fds[0]);
    return {};
  }
  if (o.own_group) ::setpgid(pid, pid);  // also here, so the time limit cannot race the child's own call
  return watch(pid, fds[0], o, t0);
}

ProgramRun run_program(const std::vector<std::string>& argv, const ProgramOptions& options) {
  ProgramRun r;
  if (argv.empty()) return r;
  auto exec = [&](int) -> int {
    if (!options.output_file.empty()) {
      int fd = ::open(options.output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      if (fd < 0 || ::dup2(fd, STDOUT_FILENO) < 0 || ::dup2(fd, STDERR_FILENO) < 0) return 127;
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    std::fprintf(stderr, "cannot run %s\n", args[0]);
    return 127;
  };
  ForkOptions fork_options;
  fork_options.timeout_ms = options.timeout_s * 1000;
  fork_options.while_running = options.while_running;
  const ChildEnd end = run_forked(exec, fork_options);
  r.status = end.shell_status();
  r.interrupted = end.how == ChildEnd::How::interrupted;
  return r;
}

void signal_process_group(pid_t pid, int sig) {
  if (::kill(-pid, sig) != 0) ::kill(pid, sig);  // the group, else the process alone (already gone: ESRCH)
}

int shell_status_of(int status) { return ended(status).shell_status(); }

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    int s = WTERMSIG(status);
    return "was killed by signal " + std::to_string(s) + " (" + ::strsignal(s) + ")";
  }
  return "stopped";
}

std::vector<std::string> all_on_path(const std::string& program, const std::string& path) {
  if (program.find('/') != std::string::npos)
    return ::access(program.c_str(), X_OK) == 0 ? std::vector<std::string>{program} : std::vector<std::string>{};
  std::vector<std::string> found;
  for (const auto& dir : split(path, ':'))  // empty entries dropped
    if (std::string candidate = dir + "/" + program; ::access(candidate.c_str(), X_OK) == 0) found.push_back(candidate);
  return found;
}

std::optional<std::string> find_on_path(const std::string& program, const std::string& path) {
  auto all = all_on_path(program, path);
  if (all.empty()) return std::nullopt;
  return all.front();
}

}  // namespace dlready
