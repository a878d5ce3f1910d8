#include "core/process_runner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <thread>

#include "core/text.hpp"

namespace dlready {

namespace {

[[noreturn]] void exec_child(const std::vector<std::string>& argv, const std::string& output_file) {
  if (!output_file.empty()) {
    int fd = ::open(output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || ::dup2(fd, STDOUT_FILENO) < 0 || ::dup2(fd, STDERR_FILENO) < 0) ::_exit(127);
  }
  ::setpgid(0, 0);  // its own group: a time limit kills what it started too
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  ::execvp(args[0], args.data());
  std::fprintf(stderr, "cannot run %s\n", args[0]);
  ::_exit(127);
}

int shell_status(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }

}  // namespace

ProgramRun run_program(const std::vector<std::string>& argv, const ProgramOptions& options) {
  ProgramRun r;
  if (argv.empty()) return r;
  pid_t pid = ::fork();
  if (pid == 0) exec_child(argv, options.output_file);
  if (pid < 0) return r;
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(options.timeout_s);
  int status = 0;
  for (;;) {
    pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) return r;
    if (options.while_running) options.while_running(pid);
    if (options.timeout_s > 0 && std::chrono::steady_clock::now() > until) {
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);  // before it made its group
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      r.status = 124;
      return r;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (options.while_running) options.while_running(pid);
  r.status = shell_status(status);
  return r;
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
