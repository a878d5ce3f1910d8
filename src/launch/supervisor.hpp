// The supervisor of `dlready launch`'s local ranks: it starts them, pumps their output with a rank
// prefix, reaps them, forwards SIGINT/SIGTERM/SIGHUP, stops every rank when one fails, and escalates
// to SIGKILL after the grace period. Signals arrive through a signalfd polled with the ranks'
// pipes: no handler, no global state. Every system call's result is checked.
#pragma once
#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "launch/launcher.hpp"
#include "launch/node_link.hpp"

namespace dlready {

class Supervisor {
 public:
  explicit Supervisor(const LaunchOptions& o);
  ~Supervisor();  // closes what is still open and restores the signal mask
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  // Blocks the signals and opens the signalfd; fails naming the call (nothing started then).
  Status init();
  // The signalfd (SIGINT, SIGTERM...): the launchers' meeting ends at once when it is readable.
  int signal_fd() const { return sfd_; }
  // Starts every local rank; false when one could not start (the others are being stopped).
  bool start_ranks();
  // Supervises until every rank has exited and its output is drained; the launch's exit status.
  // With `nodes` (a multi-node job), a node that stops or is lost stops these ranks too.
  int run(NodeWatch* nodes = nullptr);
  // After run(): whether a rank failed on its own (not stopped by a signal to the launcher, not a
  // rank that could not start), so that --max-restarts may start the group again.
  bool a_rank_failed() const { return result_ != 0 && !interrupted_ && !start_failed_; }
  // Starts every local rank again, as the next attempt (TORCHELASTIC_RESTART_COUNT).
  bool restart();

 private:
  using Clock = std::chrono::steady_clock;
  struct Rank {
    int global = 0, local = 0;
    pid_t pid = -1;
    int out = -1, err = -1;        // read ends of the child's stdout / stderr
    std::string out_buf, err_buf;  // partial lines
    bool running = false;
  };

  pid_t spawn(Rank& r);
  void stop_all(const std::string& why);
  void on_signals();
  void pump_output();
  void pump(Rank& r, int& fd, std::string& buf, int dest);
  void reap();
  void escalate();
  bool any_running() const;
  void emit_lines(int fd, int rank, std::string& buf, bool flush);
  // Writes to the launcher's own stdout/stderr; a stdout closed under it (`| head`) ends the
  // ranks' output there, said once on stderr — never the job.
  void put(int fd, const std::string& text);
  int terminal_columns() const;
  int open_fds() const;

  const LaunchOptions& o_;
  sigset_t mask_{}, old_mask_{};
  bool mask_set_ = false;
  int sfd_ = -1;
  std::vector<Rank> ranks_;
  int result_ = 0;
  bool stopping_ = false;
  Clock::time_point kill_at_{};
  bool terminal_;               // stdout and stderr are a terminal: show rank 0's progress line
  bool progress_shown_ = false;  // a progress line is on the terminal, not ended by a newline
  bool stdout_closed_ = false;
  bool interrupted_ = false;  // the launcher got SIGINT/SIGTERM/SIGHUP: no restart
  bool start_failed_ = false;
  int attempt_ = 0;           // 0 first, then one more per restart
  void close_ranks();         // flushes and closes the output of ranks that have exited
};

}  // namespace dlready
