// One way to run work in another process, for every command: a function in a forked child (the
// doctor's driver probes) or another program (pip, uv, tar, curl) — with a time limit after which
// the child (and, when it has its own, its process group) is killed and reaped, its output read
// from a pipe or sent to a file, and how it ended in one shape. One PATH lookup beside it. The
// launcher's supervisor, which watches many ranks at once, shares the signalling and the words.
#pragma once
#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dlready {

// How a child ended.
struct ChildEnd {
  // interrupted: a stop was asked for (os/stop_signal.hpp): the child's group got SIGINT, then
  // SIGKILL after a grace period, and was reaped.
  enum class How { exited, signalled, timed_out, interrupted, not_started } how = How::not_started;
  int code = 0;  // the exit status, or the signal's number
  double elapsed_ms = 0;
  // The shell's number: the status; 128 + N for signal N; 124 after the time limit; 130 when
  // interrupted; 127 when it could not start.
  int shell_status() const;
};

struct ForkOptions {
  int timeout_ms = 0;  // 0 = no limit
  // Its own process group, so the time limit kills what it started too. The doctor's probe
  // children stay in ours, so a Ctrl-C at the terminal reaches them with the doctor.
  bool own_group = true;
  // The child's pipe (the `out` descriptor its function gets), chunk by chunk; return false to stop
  // reading (the child is then only waited for). nullptr: no pipe (`out` is -1).
  std::function<bool(std::string_view)> on_output;
  std::function<void(pid_t)> while_running;  // called about every 50 ms (a log follower)
};

// Runs `in_child(out)` in a forked child; its return value is the child's exit status (_exit: no
// atexit handlers, no flushing of this process's stdio buffers).
ChildEnd run_forked(const std::function<int(int out)>& in_child, const ForkOptions& options);

struct ProgramOptions {
  std::string output_file;  // stdout and stderr together; "" = this process's own
  int timeout_s = 0;        // 0 = no limit
  std::function<void(pid_t)> while_running;  // called about every 50 ms (a log follower)
};

struct ProgramRun {
  int status = 127;  // ChildEnd::shell_status(): 127 when not on PATH
  bool interrupted = false;  // ended because a stop was asked for (Ctrl-C), not by itself
  bool timed_out() const { return status == 124; }
};

// `argv` (looked up on PATH) in its own process group.
ProgramRun run_program(const std::vector<std::string>& argv, const ProgramOptions& options = {});

// Sends `sig` to the process group `pid` leads, else to the process alone (gone already: nothing).
void signal_process_group(pid_t pid, int sig);
// A waitpid status as the shell's number (128 + N for signal N) and in words: "exited with status
// 3", "was killed by signal 9 (Killed)".
int shell_status_of(int wait_status);
std::string describe_wait_status(int status);

// Every executable `program` in the directories of `path` (PATH's syntax), in PATH's order.
std::vector<std::string> all_on_path(const std::string& program, const std::string& path);
// The first of them (what a shell runs); nullopt when none.
std::optional<std::string> find_on_path(const std::string& program, const std::string& path);

}  // namespace dlready
