#include "launch/supervisor.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/text.hpp"
#include "os/posix_fs.hpp"
#include "os/process_runner.hpp"
#include "os/terminal.hpp"
#include "launch/dist_env.hpp"

namespace dlready {
namespace {

// A line as a terminal would leave it: what follows its last carriage return, without the
// "clear to the end of the line" a rank's console puts there.
std::string as_shown(const std::string& line) {
  size_t cr = line.rfind('\r');
  std::string text = cr == std::string::npos ? line : line.substr(cr + 1);
  if (text.rfind("\x1b[K", 0) == 0) text.erase(0, 3);
  return text;
}

}  // namespace

// Forwards whole lines from buf to fd with the rank prefix; flush=true also sends a last partial
// line. A rank's progress line (text after a carriage return, no newline yet) is redrawn in place
// on the launcher's terminal and dropped elsewhere; any other line first clears it.
void Supervisor::put(int fd, const std::string& text) {
  if (fd == STDOUT_FILENO && stdout_closed_) return;
  if (write_fully(fd, text) || fd != STDOUT_FILENO || errno != EPIPE) return;
  stdout_closed_ = true;
  (void)write_fully(STDERR_FILENO, "dlready launch: stdout was closed (the end of a pipe went away): the ranks' output "
                                 "stops here, the job goes on\n");
}

void Supervisor::emit_lines(int fd, int rank, std::string& buf, bool flush) {
  std::string prefix = "[rank " + std::to_string(rank) + "] ";
  auto clear_progress = [&] {
    if (progress_shown_) put(fd, "\r\x1b[K");
    progress_shown_ = false;
  };
  size_t start = 0, nl;
  while ((nl = buf.find('\n', start)) != std::string::npos) {
    clear_progress();
    put(fd, prefix + as_shown(buf.substr(start, nl - start)) + "\n");
    start = nl + 1;
  }
  buf.erase(0, start);
  if (buf.find('\r') != std::string::npos && !flush) {
    if (terminal_) {
      put(fd, "\r\x1b[K" + prefix + as_shown(buf));
      progress_shown_ = true;
    }
    buf.clear();
  }
  if (flush && !buf.empty()) {
    clear_progress();
    put(fd, prefix + as_shown(buf) + "\n");
    buf.clear();
  }
}

namespace {

// In the child, between fork and exec: its own process group, the pipes, the torchrun environment.
[[noreturn]] void exec_rank(const LaunchOptions& o, const std::vector<std::pair<std::string, std::string>>& env,
                            const sigset_t& old_mask, int out, int err, pid_t launcher) {
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  ::signal(SIGPIPE, SIG_DFL);  // the launcher ignores it; the program it runs gets the usual default
  // A launcher killed outright (SIGKILL, OOM) takes its ranks with it instead of leaving them to
  // hang in a collective; the other nodes' launchers notice it through their connection.
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != launcher) ::_exit(128 + SIGTERM);  // it died before the line above
  ::setpgid(0, 0);  // its own process group: a signal reaches the rank and everything it started
  if (::dup2(out, STDOUT_FILENO) < 0 || ::dup2(err, STDERR_FILENO) < 0) ::_exit(127);
  for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
  // Like torchrun: one intra-op thread per rank unless the user chose, so N ranks do not
  // oversubscribe the cores.
  if (o.nproc_per_node > 1) ::setenv("OMP_NUM_THREADS", "1", 0);
  std::vector<std::string> args = o.command;
  // `launch -- dlready train ...` runs this very dlready, on PATH or not (a clone's
  // build/release/dlready is not on PATH, and another dlready there would be another version).
  if (args[0] == "dlready")
    if (std::string self = own_executable(); !self.empty()) args[0] = self;
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execvp(argv[0], argv.data());
  std::fprintf(stderr, "dlready launch: cannot run %s: %s\n", printable(argv[0], 80).c_str(), std::strerror(errno));
  ::_exit(127);
}

}  // namespace

Supervisor::Supervisor(const LaunchOptions& o)
    : o_(o), terminal_(::isatty(STDOUT_FILENO) == 1 && ::isatty(STDERR_FILENO) == 1) {}

int Supervisor::terminal_columns() const { return dlready::terminal_columns(STDOUT_FILENO); }

void Supervisor::close_ranks() {
  for (auto& r : ranks_) {
    if (r.out >= 0) emit_lines(STDOUT_FILENO, r.global, r.out_buf, true), ::close(r.out);
    if (r.err >= 0) emit_lines(STDERR_FILENO, r.global, r.err_buf, true), ::close(r.err);
    r.out = r.err = -1;
  }
}

Supervisor::~Supervisor() {
  close_ranks();
  if (sfd_ >= 0) ::close(sfd_);
  if (mask_set_) ::sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
}

Status Supervisor::init() {
  sigemptyset(&mask_);
  for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&mask_, s);
  if (::sigprocmask(SIG_BLOCK, &mask_, &old_mask_) != 0)
    return Status::failure(std::string("cannot block signals (sigprocmask): ") + std::strerror(errno));
  mask_set_ = true;
  sfd_ = ::signalfd(-1, &mask_, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sfd_ < 0)  // without it Ctrl-C would be swallowed: refuse to start rather than run deaf
    return Status::failure(std::string("cannot receive signals (signalfd): ") + std::strerror(errno));
  return {};
}

pid_t Supervisor::spawn(Rank& r) {
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return -1;
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]), ::close(out[1]);
    return -1;
  }
  int world = o_.nnodes * o_.nproc_per_node;
  auto env = torchrun_environment(r.global, world, r.local, o_.nproc_per_node, o_.node_rank, o_.master_addr,
                                  o_.master_port);
  env["TORCHELASTIC_RESTART_COUNT"] = std::to_string(attempt_);
  env["TORCHELASTIC_MAX_RESTARTS"] = std::to_string(o_.max_restarts);
  if (terminal_) {  // rank 0's progress line, shown here after its "[rank 0] " prefix
    env["DLREADY_PROGRESS"] = "1";
    int prefix = static_cast<int>(std::string("[rank ] ").size() + std::to_string(r.global).size());
    env["COLUMNS"] = std::to_string(std::max(terminal_columns() - prefix, 20));
  }
  pid_t launcher = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) exec_rank(o_, {env.begin(), env.end()}, old_mask_, out[1], err[1], launcher);
  if (pid > 0) ::setpgid(pid, pid);  // also here, so no signal can race the child's own call
  ::close(out[1]), ::close(err[1]);
  if (pid < 0) {
    ::close(out[0]), ::close(err[0]);
    return -1;
  }
  r.out = out[0], r.err = err[0];
  return pid;
}

bool Supervisor::restart() {
  close_ranks();
  ranks_.clear();
  stopping_ = false;
  result_ = 0;
  ++attempt_;
  return start_ranks();
}

bool Supervisor::start_ranks() {
  ranks_.resize(static_cast<size_t>(o_.nproc_per_node));
  for (int i = 0; i < o_.nproc_per_node; ++i) {
    auto& r = ranks_[static_cast<size_t>(i)];
    r.local = i;
    r.global = o_.node_rank * o_.nproc_per_node + i;
    r.pid = spawn(r);
    r.running = r.pid > 0;
    if (!r.running) {
      std::fprintf(stderr, "dlready launch: cannot start rank %d: %s\n", r.global, std::strerror(errno));
      ranks_.resize(static_cast<size_t>(i));
      stop_all("a rank could not start");
      result_ = 2;
      start_failed_ = true;
      return false;
    }
  }
  return true;
}

void Supervisor::stop_all(const std::string& why) {
  if (stopping_) return;
  stopping_ = true;
  kill_at_ = Clock::now() + std::chrono::seconds(o_.grace_seconds);
  int n = 0;
  for (auto& q : ranks_)
    if (q.running) signal_process_group(q.pid, SIGTERM), ++n;
  if (n) std::fprintf(stderr, "dlready launch: %s; stopping the other %d rank(s)\n", why.c_str(), n);
  else std::fprintf(stderr, "dlready launch: %s\n", why.c_str());
}

void Supervisor::on_signals() {
  signalfd_siginfo si;
  while (::read(sfd_, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
    if (si.ssi_signo == SIGCHLD) continue;  // reaped below
    int sig = static_cast<int>(si.ssi_signo);
    if (stopping_) {  // a second interrupt: no more waiting
      for (auto& q : ranks_)
        if (q.running) signal_process_group(q.pid, SIGKILL);
      continue;
    }
    interrupted_ = true;
    std::fprintf(stderr, "dlready launch: got %s, forwarding it to every rank\n", ::strsignal(sig));
    for (auto& q : ranks_)
      if (q.running) signal_process_group(q.pid, sig);
    stopping_ = true;
    kill_at_ = Clock::now() + std::chrono::seconds(o_.grace_seconds);
    if (result_ == 0) result_ = 128 + sig;
  }
}

void Supervisor::pump(Rank& r, int& fd, std::string& buf, int dest) {
  if (fd < 0) return;
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, 0) <= 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR))) return;
  char chunk[65536];
  ssize_t n = ::read(fd, chunk, sizeof chunk);
  if (n > 0) {
    buf.append(chunk, static_cast<size_t>(n));
    emit_lines(dest, r.global, buf, false);
  } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
    emit_lines(dest, r.global, buf, true);
    ::close(fd);
    fd = -1;
  }
}

void Supervisor::pump_output() {
  for (auto& r : ranks_) {
    pump(r, r.out, r.out_buf, STDOUT_FILENO);
    pump(r, r.err, r.err_buf, STDERR_FILENO);
  }
}

void Supervisor::reap() {
  int status = 0;
  pid_t pid;
  while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
    for (auto& r : ranks_) {
      if (r.pid != pid) continue;
      r.running = false;
      bool failed = !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
      if (failed && !stopping_) {
        result_ = shell_status_of(status);
        stop_all("rank " + std::to_string(r.global) + " (pid " + std::to_string(pid) + ") " + describe_wait_status(status));
      }
    }
  }
}

void Supervisor::escalate() {
  if (!stopping_ || Clock::now() < kill_at_) return;
  for (auto& r : ranks_)
    if (r.running) {
      std::fprintf(stderr, "dlready launch: rank %d did not stop within %d s: SIGKILL\n", r.global, o_.grace_seconds);
      signal_process_group(r.pid, SIGKILL);
    }
  kill_at_ = Clock::now() + std::chrono::hours(1);
}

bool Supervisor::any_running() const {
  for (const auto& r : ranks_)
    if (r.running) return true;
  return false;
}

int Supervisor::open_fds() const {
  int n = 0;
  for (const auto& r : ranks_) n += (r.out >= 0) + (r.err >= 0);
  return n;
}

int Supervisor::run(NodeWatch* nodes) {
  // Once every rank has exited, output still held open by something a rank left behind is read
  // for at most this long.
  std::optional<Clock::time_point> drain_until;
  while (any_running() || open_fds() > 0) {
    if (!any_running()) {
      if (!drain_until) drain_until = Clock::now() + std::chrono::seconds(2);
      if (Clock::now() > *drain_until) break;
    }
    std::vector<pollfd> fds{{sfd_, POLLIN, 0}};
    for (auto& r : ranks_) {
      if (r.out >= 0) fds.push_back({r.out, POLLIN, 0});
      if (r.err >= 0) fds.push_back({r.err, POLLIN, 0});
    }
    if (nodes && any_running())
      for (const auto& p : nodes->poll_fds()) fds.push_back(p);
    if (::poll(fds.data(), fds.size(), stopping_ ? 200 : 1000) < 0 && errno != EINTR) {
      std::fprintf(stderr, "dlready launch: poll failed: %s; stopping every rank\n", std::strerror(errno));
      stop_all("the launcher cannot watch its ranks");
      if (result_ == 0) result_ = 1;
    }
    if (fds[0].revents & POLLIN) on_signals();
    if (nodes && any_running())
      if (auto why = nodes->on_readable(); why && !stopping_) {
        if (result_ == 0) result_ = 1;
        stop_all(*why);
      }
    pump_output();
    reap();
    escalate();
  }
  return result_;
}

}  // namespace dlready
