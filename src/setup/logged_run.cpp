#include "setup/logged_run.hpp"

#include <sys/types.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <optional>

#include "os/process_runner.hpp"
#include "core/text.hpp"

namespace dlready {
namespace {

std::string last_lines(const std::string& path, size_t n) {
  std::ifstream in(path);
  std::vector<std::string> all;
  for (std::string l; std::getline(in, l);) all.push_back(l);
  size_t from = all.size() > n ? all.size() - n : 0;
  std::string out;
  for (size_t i = from; i < all.size(); ++i) out += "    | " + all[i] + "\n";
  return out;
}

// Bytes the process has written so far (/proc/<pid>/io wchar: a download going to disk); nullopt
// where the kernel does not say.
std::optional<unsigned long long> bytes_written(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/io");
  for (std::string line; std::getline(in, line);)
    if (starts_with(line, "wchar:"))
      if (auto v = parse_int(trim(line.substr(6))); v && *v >= 0) return static_cast<unsigned long long>(*v);
  return std::nullopt;
}

// An installer's output as it comes: each new whole line of `log` on stdout, and after
// `kQuietSeconds` without one a line that shows it still moves (a 3 GB wheel downloads silently).
class LogFollower {
 public:
  LogFollower(std::string log, pid_t pid, std::FILE* to) : log_(std::move(log)), pid_(pid), to_(to) {}
  void poll() {
    std::ifstream in(log_, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(offset_));
    std::string chunk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto now = std::chrono::steady_clock::now();
    size_t end = chunk.rfind('\n');
    if (end != std::string::npos) {
      offset_ += end + 1;
      for (const auto& line : split(chunk.substr(0, end), '\n'))
        if (!trim(line).empty()) std::fprintf(to_, "    | %s\n", printable(line, 240).c_str());
      std::fflush(to_);
      last_line_ = now;
    } else if (now - last_line_ > std::chrono::seconds(kQuietSeconds)) {
      auto secs = std::chrono::duration_cast<std::chrono::seconds>(now - started_).count();
      auto written = bytes_written(pid_);
      if (written && *written < (1u << 20)) written.reset();  // a compiler writes its objects, not this process
      std::fprintf(to_, "    … still running (%lld s%s)\n", static_cast<long long>(secs),
                  written ? (", " + human_bytes(*written) + " written").c_str() : "");
      std::fflush(to_);
      last_line_ = now;
    }
  }

 private:
  static constexpr int kQuietSeconds = 10;
  std::string log_;
  pid_t pid_;
  std::FILE* to_;
  size_t offset_ = 0;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now(), last_line_ = started_;
};

}  // namespace

Ran run_logged(const std::vector<std::string>& argv, const std::string& log, int seconds, bool stream, std::FILE* shown_on) {
  std::optional<LogFollower> follower;
  ProgramOptions options{log, seconds, nullptr};
  if (stream)
    options.while_running = [&](pid_t pid) {
      if (!follower) follower.emplace(log, pid, shown_on);
      follower->poll();
    };
  Ran r;
  const ProgramRun run = run_program(argv, options);
  r.status = run.status;
  r.interrupted = run.interrupted;
  r.streamed = stream;
  r.tail = last_lines(log, 12);
  return r;
}


}  // namespace dlready
