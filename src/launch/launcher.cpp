#include "launch/launcher.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "dist/dist_env.hpp"

namespace dlready {
namespace {

using Clock = std::chrono::steady_clock;

struct Rank {
  int global = 0, local = 0;
  pid_t pid = -1;
  int out = -1, err = -1;          // read ends of the child's stdout / stderr
  std::string out_buf, err_buf;    // partial lines
  bool running = false;
  int status = 0;
};

void write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    off += static_cast<size_t>(n);
  }
}

// Forwards whole lines from buf to fd with the rank prefix; flush=true also sends a last partial line.
void emit_lines(int fd, int rank, std::string& buf, bool flush) {
  std::string prefix = "[rank " + std::to_string(rank) + "] ";
  size_t start = 0, nl;
  while ((nl = buf.find('\n', start)) != std::string::npos) {
    write_all(fd, prefix + buf.substr(start, nl - start + 1));
    start = nl + 1;
  }
  buf.erase(0, start);
  if (flush && !buf.empty()) {
    write_all(fd, prefix + buf + "\n");
    buf.clear();
  }
}

std::string describe(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    int s = WTERMSIG(status);
    return "was killed by signal " + std::to_string(s) + " (" + ::strsignal(s) + ")";
  }
  return "stopped";
}

void signal_rank(const Rank& r, int sig) {
  if (::kill(-r.pid, sig) != 0) ::kill(r.pid, sig);  // the group, else the process alone
}

int exit_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

pid_t spawn(const LaunchOptions& o, Rank& r, const sigset_t& old_mask) {
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return -1;
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]), ::close(out[1]);
    return -1;
  }
  int world = o.nnodes * o.nproc_per_node;
  auto env = torchrun_environment(r.global, world, r.local, o.nproc_per_node, o.node_rank, o.master_addr, o.master_port);
  std::vector<std::string> args = o.command;
  pid_t pid = ::fork();
  if (pid == 0) {
    ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    ::setpgid(0, 0);  // its own process group: a signal reaches the rank and everything it started
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(err[1], STDERR_FILENO);
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    // Like torchrun: one intra-op thread per rank unless the user chose, so N ranks do not
    // oversubscribe the cores.
    if (o.nproc_per_node > 1) ::setenv("OMP_NUM_THREADS", "1", 0);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    std::fprintf(stderr, "dlready launch: cannot run %s: %s\n", argv[0], std::strerror(errno));
    ::_exit(127);
  }
  if (pid > 0) ::setpgid(pid, pid);  // also here, so no signal can race the child's own call
  ::close(out[1]), ::close(err[1]);
  if (pid < 0) {
    ::close(out[0]), ::close(err[0]);
    return -1;
  }
  r.out = out[0], r.err = err[0];
  return pid;
}

}  // namespace

std::string check_launch_options(const LaunchOptions& o) {
  if (o.command.empty()) return "no command: dlready launch --nproc-per-node N -- dlready train ...";
  if (o.nproc_per_node < 1) return "--nproc-per-node must be at least 1";
  if (o.nnodes < 1) return "--nnodes must be at least 1";
  if (o.node_rank < 0 || o.node_rank >= o.nnodes)
    return "--node-rank " + std::to_string(o.node_rank) + " is outside 0.." + std::to_string(o.nnodes - 1);
  if (o.master_port < 1 || o.master_port > 65535) return "--master-port must be 1..65535";
  if (o.master_addr.empty()) return "--master-addr is empty";
  return "";
}

int run_launch(const LaunchOptions& o) {
  if (auto e = check_launch_options(o); !e.empty()) {
    std::fprintf(stderr, "dlready launch: %s\n", e.c_str());
    return 2;
  }
  // Signals arrive through a signalfd polled with the children's pipes: no handler, no global state.
  sigset_t mask, old_mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGCHLD), sigaddset(&mask, SIGINT), sigaddset(&mask, SIGTERM), sigaddset(&mask, SIGHUP);
  ::sigprocmask(SIG_BLOCK, &mask, &old_mask);
  int sfd = ::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);

  std::vector<Rank> ranks(static_cast<size_t>(o.nproc_per_node));
  int world = o.nnodes * o.nproc_per_node;
  std::fprintf(stderr, "dlready launch: %d local rank(s) of %d, node %d/%d, rendezvous %s:%d\n", o.nproc_per_node,
               world, o.node_rank, o.nnodes, o.master_addr.c_str(), o.master_port);
  for (int i = 0; i < o.nproc_per_node; ++i) {
    auto& r = ranks[static_cast<size_t>(i)];
    r.local = i;
    r.global = o.node_rank * o.nproc_per_node + i;
    r.pid = spawn(o, r, old_mask);
    r.running = r.pid > 0;
    if (!r.running) {
      std::fprintf(stderr, "dlready launch: cannot start rank %d: %s\n", r.global, std::strerror(errno));
      for (auto& q : ranks)
        if (q.running) signal_rank(q, SIGTERM);
      break;
    }
  }

  int result = 0;
  bool stopping = false;
  Clock::time_point kill_at{};
  auto stop_others = [&](const char* why) {
    if (stopping) return;
    stopping = true;
    kill_at = Clock::now() + std::chrono::seconds(o.grace_seconds);
    int n = 0;
    for (auto& q : ranks)
      if (q.running) signal_rank(q, SIGTERM), ++n;
    if (n) std::fprintf(stderr, "dlready launch: %s; stopping the other %d rank(s)\n", why, n);
    else std::fprintf(stderr, "dlready launch: %s\n", why);
  };
  if (std::any_of(ranks.begin(), ranks.end(), [](const Rank& r) { return !r.running && r.pid <= 0; })) {
    stop_others("a rank could not start");
    result = 2;
  }

  auto open_fds = [&] {
    int n = 0;
    for (auto& r : ranks) n += (r.out >= 0) + (r.err >= 0);
    return n;
  };
  auto any_running = [&] {
    for (auto& r : ranks)
      if (r.running) return true;
    return false;
  };
  char buf[65536];
  // Once every rank has exited, output still held open by something a rank left behind is read
  // for at most this long.
  std::optional<Clock::time_point> drain_until;
  while (any_running() || open_fds() > 0) {
    if (!any_running()) {
      if (!drain_until) drain_until = Clock::now() + std::chrono::seconds(2);
      if (Clock::now() > *drain_until) break;
    }
    std::vector<pollfd> fds{{sfd, POLLIN, 0}};
    for (auto& r : ranks) {
      if (r.out >= 0) fds.push_back({r.out, POLLIN, 0});
      if (r.err >= 0) fds.push_back({r.err, POLLIN, 0});
    }
    int timeout_ms = stopping ? 200 : 1000;
    ::poll(fds.data(), fds.size(), timeout_ms);
    if (fds[0].revents & POLLIN) {
      signalfd_siginfo si;
      while (::read(sfd, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
        if (si.ssi_signo == SIGCHLD) continue;  // reaped below
        int sig = static_cast<int>(si.ssi_signo);
        if (stopping) {  // a second interrupt: no more waiting
          for (auto& q : ranks)
            if (q.running) signal_rank(q, SIGKILL);
        } else {
          std::fprintf(stderr, "dlready launch: got %s, forwarding it to every rank\n", ::strsignal(sig));
          for (auto& q : ranks)
            if (q.running) signal_rank(q, sig);
          stopping = true;
          kill_at = Clock::now() + std::chrono::seconds(o.grace_seconds);
          if (result == 0) result = 128 + sig;
        }
      }
    }
    for (auto& r : ranks) {
      for (int* fd : {&r.out, &r.err}) {
        if (*fd < 0) continue;
        pollfd p{*fd, POLLIN, 0};
        if (::poll(&p, 1, 0) <= 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
        ssize_t n = ::read(*fd, buf, sizeof buf);
        std::string& b = (fd == &r.out) ? r.out_buf : r.err_buf;
        int dest = (fd == &r.out) ? STDOUT_FILENO : STDERR_FILENO;
        if (n > 0) {
          b.append(buf, static_cast<size_t>(n));
          emit_lines(dest, r.global, b, false);
        } else if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
          emit_lines(dest, r.global, b, true);
          ::close(*fd);
          *fd = -1;
        }
      }
    }
    int status = 0;
    pid_t pid;
    while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
      for (auto& r : ranks) {
        if (r.pid != pid) continue;
        r.running = false;
        r.status = status;
        bool failed = !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        if (failed && !stopping) {
          std::string why = "rank " + std::to_string(r.global) + " (pid " + std::to_string(pid) + ") " + describe(status);
          result = exit_code(status);
          stop_others(why.c_str());
        }
      }
    }
    if (stopping && Clock::now() >= kill_at) {
      for (auto& r : ranks)
        if (r.running) {
          std::fprintf(stderr, "dlready launch: rank %d did not stop within %d s: SIGKILL\n", r.global, o.grace_seconds);
          signal_rank(r, SIGKILL);
        }
      kill_at = Clock::now() + std::chrono::hours(1);
    }
  }
  for (auto& r : ranks) {
    if (r.out >= 0) emit_lines(STDOUT_FILENO, r.global, r.out_buf, true), ::close(r.out);
    if (r.err >= 0) emit_lines(STDERR_FILENO, r.global, r.err_buf, true), ::close(r.err);
  }
  ::close(sfd);
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  if (result == 0)
    std::fprintf(stderr, "dlready launch: all %d local rank(s) finished\n", o.nproc_per_node);
  return result;
}

}  // namespace dlready
