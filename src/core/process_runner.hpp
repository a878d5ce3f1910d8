// One way to run another program (pip, uv, tar, curl): its argv looked up on PATH, its output into
// a file (or this process's), at most `timeout_s` seconds — then its whole process group is killed
// — and how it ended, in the shell's numbers. One PATH lookup beside it.
#pragma once
#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dlready {

struct ProgramOptions {
  std::string output_file;  // stdout and stderr together; "" = this process's own
  int timeout_s = 0;        // 0 = no limit
  std::function<void(pid_t)> while_running;  // called about every 50 ms (a log follower)
};

struct ProgramRun {
  // The exit status; 128 + N when signal N ended it; 124 after the time limit; 127 when it could
  // not start (not on PATH, or fork failed).
  int status = 127;
  bool timed_out() const { return status == 124; }
};

ProgramRun run_program(const std::vector<std::string>& argv, const ProgramOptions& options = {});

// Every executable `program` in the directories of `path` (PATH's syntax), in PATH's order.
std::vector<std::string> all_on_path(const std::string& program, const std::string& path);
// The first of them (what a shell runs); nullopt when none.
std::optional<std::string> find_on_path(const std::string& program, const std::string& path);

}  // namespace dlready
