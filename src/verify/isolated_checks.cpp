#include "verify/isolated_checks.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "os/fatal_signal.hpp"
#include "core/json_text.hpp"
#include "os/posix_fs.hpp"
#include "core/text.hpp"

namespace dlready {
namespace {

struct Child {
  pid_t pid = -1;
  int read_fd = -1;
};

// fork() with a pipe from the child; `body` runs in the child with the pipe's write end and the
// child ends with _exit (no destructors, no atexit handlers, no second flush of our buffers).
Child start_child(const char* stage, const std::function<void(int)>& body) {
  std::fflush(stdout);
  std::fflush(stderr);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return {};
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return {};
  }
  if (pid == 0) {
    ::close(fds[0]);
    install_fatal_signal_report("verify", fds[1]);
    set_fatal_signal_stage(stage);
    body(fds[1]);
    std::fflush(stdout);
    std::fflush(stderr);
    ::_exit(0);
  }
  ::close(fds[1]);
  return {pid, fds[0]};
}

// Reads the child's lines until it closes the pipe, then reaps it: none when it exited 0, else how
// it ended ("died of SIGSEGV in /path/libX.so").
std::optional<std::string> finish_child(const Child& c, const std::function<void(const std::string&)>& on_line) {
  std::string buf, fatal;
  char chunk[65536];
  for (;;) {
    ssize_t n = ::read(c.read_fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buf.append(chunk, static_cast<size_t>(n));
    for (size_t nl; (nl = buf.find('\n')) != std::string::npos; buf.erase(0, nl + 1)) {
      std::string line = buf.substr(0, nl);
      if (starts_with(line, "#fatal ")) fatal = line.substr(7);
      else on_line(line);
    }
  }
  ::close(c.read_fd);
  int status = 0;
  while (::waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return std::nullopt;
  if (WIFSIGNALED(status)) {
    std::string how = std::string("died of ") + signal_name(WTERMSIG(status));
    auto space = fatal.find(' ');
    if (space != std::string::npos && fatal.substr(space + 1) != "?") how += " in " + fatal.substr(space + 1);
    return how;
  }
  return "exited with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

CheckStatus status_from(const std::string& s) {
  for (auto st : {CheckStatus::pass, CheckStatus::warn, CheckStatus::fail, CheckStatus::skipped})
    if (s == to_string(st)) return st;
  return CheckStatus::fail;
}

}  // namespace

std::vector<CheckOutcome> run_checks_isolated(const std::vector<Check>& checks, const CheckContext& ctx,
                                              const std::function<void(const CheckOutcome&)>& on_result) {
  std::vector<CheckOutcome> out;
  size_t next = 0;
  std::string device = ctx.device.str();
  while (next < checks.size()) {
    size_t first = next;
    std::string stage = "the checks on " + device;
    Child child = start_child(stage.c_str(), [&](int fd) {
      for (size_t i = first; i < checks.size(); ++i) {
        std::string where = "check " + checks[i].id + " on " + device;
        set_fatal_signal_stage(where.c_str());
        (void)write_fully(fd, "start " + std::to_string(i) + "\n");
        auto r = run_check(checks[i], ctx);
        nlohmann::json j{{"i", i}, {"status", to_string(r.status)}, {"detail", r.detail}, {"data", r.data}};
        (void)write_fully(fd, "result " + json_text(j) + "\n");
      }
    });
    if (child.pid < 0) {
      for (size_t i = next; i < checks.size(); ++i) {
        CheckOutcome o{&checks[i], {CheckStatus::fail, "could not start a process for the check", {}}};
        on_result(o);
        out.push_back(std::move(o));
      }
      break;
    }
    size_t started = first;
    bool in_check = false;
    std::optional<std::string> how = finish_child(child, [&](const std::string& line) {
      if (starts_with(line, "start ")) {
        started = std::strtoul(line.c_str() + 6, nullptr, 10);
        in_check = true;
        return;
      }
      if (!starts_with(line, "result ")) return;
      auto j = nlohmann::json::parse(line.substr(7), nullptr, false);
      if (j.is_discarded() || !j.contains("i")) return;
      size_t i = j.value("i", size_t{0});
      if (i >= checks.size()) return;
      CheckOutcome o{&checks[i], {status_from(j.value("status", "")), j.value("detail", ""), j.value("data", nlohmann::json::object())}};
      on_result(o);
      out.push_back(std::move(o));
      in_check = false;
      next = i + 1;
    });
    if (!how) break;  // every check reported
    size_t dead = in_check ? started : next;
    if (dead >= checks.size()) break;  // died after the last check (at exit): every result is in
    CheckOutcome o{&checks[dead],
                   {CheckStatus::fail, "the check's process " + *how + "; see dlready doctor",
                    {{"process", *how}}}};
    on_result(o);
    out.push_back(std::move(o));
    next = dead + 1;
  }
  return out;
}

IsolatedJson run_isolated_json(const char* stage, const std::function<nlohmann::json()>& body) {
  Child child = start_child(stage, [&](int fd) {
    (void)write_fully(fd, json_text(body()) + "\n");
  });
  if (child.pid < 0) return {{}, "could not start a process"};
  std::string text;
  std::optional<std::string> how = finish_child(child, [&](const std::string& line) { text = line; });
  IsolatedJson r;
  if (how) {
    r.error = "the process " + *how;
    return r;
  }
  r.value = nlohmann::json::parse(text, nullptr, false);
  if (r.value.is_discarded()) r.error = "the process reported nothing readable";
  return r;
}

}  // namespace dlready
