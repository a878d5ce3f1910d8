#include "os/fatal_signal.hpp"

#include <fcntl.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "os/posix_fs.hpp"

namespace dlready {
namespace {

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

// The handler's state (see the header: the one place a signal handler can look).
std::atomic<const char*> g_command{"dlready"};
std::atomic<const char*> g_stage{nullptr};
std::atomic<int> g_report_fd{-1};

// A line built in a fixed buffer and written with one write(2): another thread's report cannot
// interleave with it, and a pipe takes it whole (it is shorter than PIPE_BUF).
class Line {
 public:
  void add(const char* s) {
    while (*s && used_ + 1 < sizeof buf_) buf_[used_++] = *s++;
  }
  void add_hex(uintptr_t v) {
    char digits[2 + 16 + 1];
    char* p = digits + sizeof digits;
    *--p = '\0';
    do {
      *--p = "0123456789abcdef"[v & 15];
      v >>= 4;
    } while (v);
    *--p = 'x';
    *--p = '0';
    add(p);
  }
  void write_to(int fd) const { (void)write_fully(fd, std::string_view(buf_, used_)); }

 private:
  char buf_[2048];
  size_t used_ = 0;
};

uintptr_t parse_hex(const char*& p, const char* end) {
  uintptr_t v = 0;
  for (; p < end; ++p) {
    char c = *p;
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) break;
    v = v * 16 + static_cast<uintptr_t>(d);
  }
  return v;
}

// One line of /proc/self/maps ("start-end perms offset dev inode   path"): copies the path into
// `out` when the line's range holds `address`.
bool line_holds(const char* line, const char* end, uintptr_t address, char* out, size_t out_size) {
  const char* p = line;
  uintptr_t lo = parse_hex(p, end);
  if (p >= end || *p != '-') return false;
  ++p;
  uintptr_t hi = parse_hex(p, end);
  if (address < lo || address >= hi) return false;
  for (int field = 0; field < 4 && p < end; ++field) {  // perms, offset, dev, inode
    while (p < end && *p == ' ') ++p;
    while (p < end && *p != ' ') ++p;
  }
  while (p < end && *p == ' ') ++p;
  size_t n = static_cast<size_t>(end - p);
  if (n >= out_size) n = out_size - 1;
  std::memcpy(out, p, n);
  out[n] = '\0';
  return true;
}

// Async-signal-safe: the mapping of /proc/self/maps that holds `address`, into `out`.
void find_library(uintptr_t address, char* out, size_t out_size) {
  out[0] = '\0';
  int fd = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  char buf[4096];
  size_t have = 0;
  bool found = false;
  while (!found) {
    ssize_t n = ::read(fd, buf + have, sizeof buf - have);
    if (n <= 0) break;
    have += static_cast<size_t>(n);
    char* start = buf;
    for (char* nl; !found && (nl = static_cast<char*>(std::memchr(start, '\n', static_cast<size_t>(buf + have - start))));
         start = nl + 1)
      found = line_holds(start, nl, address, out, out_size);
    have -= static_cast<size_t>(start - buf);
    if (have == sizeof buf) have = 0;  // a line longer than the buffer: drop it
    std::memmove(buf, start, have);
  }
  ::close(fd);
}

uintptr_t faulting_pc(void* context) {
  auto* uc = static_cast<ucontext_t*>(context);
  if (!uc) return 0;
#if defined(__x86_64__)
  return static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<uintptr_t>(uc->uc_mcontext.pc);
#else
  return 0;
#endif
}

const char* what_it_means(int sig) {
  switch (sig) {
    case SIGSEGV: return " (invalid memory access)";
    case SIGBUS: return " (bus error)";
    case SIGILL: return " (illegal instruction)";
    case SIGFPE: return " (arithmetic exception)";
    case SIGABRT: return " (aborted)";
  }
  return "";
}

std::atomic<bool> g_reporting{false};

// A SIGBUS raised by reading a file mapped into memory (si_addr inside a file's mapping) is not a
// broken library: the file was cut short by someone else while mapped (a dataset's decoded copy
// truncated or rewritten in place). Said as what it is, with what to do; true when said.
bool said_mapped_file_cut_short(int sig, const siginfo_t* info) {
  if (sig != SIGBUS || !info || info->si_code != BUS_ADRERR) return false;  // not BUS_ADRALN: misalignment
  static char file[1024];
  find_library(reinterpret_cast<uintptr_t>(info->si_addr), file, sizeof file);
  if (file[0] != '/') return false;  // anonymous memory, a stack, [vdso]: the general line
  Line line;
  line.add("\ndlready ");
  line.add(g_command.load());
  line.add(": killed by SIGBUS reading ");
  line.add(file);
  line.add(", a file mapped into memory that another process cut short while this one read it\n"
           "  → run the command again (a dataset's decoded copy is then decoded anew), with nothing else "
           "writing that file meanwhile\n");
  line.write_to(2);
  return true;
}

extern "C" void on_fatal_signal(int sig, siginfo_t* info, void* context) {
  // One report per process: a second thread that faults meanwhile waits to die with it.
  if (g_reporting.exchange(true)) {
    for (;;) ::pause();
  }
  int saved_errno = errno;
  static char library[1024];
  uintptr_t pc = faulting_pc(context);
  find_library(pc, library, sizeof library);
  if (!library[0] && info && sig != SIGABRT) find_library(reinterpret_cast<uintptr_t>(info->si_addr), library, sizeof library);
  if (int fd = g_report_fd.load(); fd >= 0) {
    // A child whose parent names the crash (verify's checks): the record only, no second line.
    Line record;
    record.add("#fatal ");
    record.add(signal_name(sig));
    record.add(" ");
    record.add(library[0] ? library : "?");
    record.add("\n");
    record.write_to(fd);
  } else if (!said_mapped_file_cut_short(sig, info)) {
    Line line;
    line.add("\ndlready ");
    line.add(g_command.load());
    line.add(": killed by ");
    line.add(signal_name(sig));
    line.add(what_it_means(sig));
    if (const char* stage = g_stage.load()) {
      line.add(" during ");
      line.add(stage);
    }
    if (pc) {
      line.add(" at ");
      line.add_hex(pc);
    }
    if (library[0]) {
      line.add(" in ");
      line.add(library);
    }
    line.add("\n  → see dlready doctor; dlready verify --level full\n");
    line.write_to(2);
  }
  // Die of the same signal: the default action, re-raised (a fault re-executes the instruction).
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  errno = saved_errno;
  if (sig == SIGABRT || (info && info->si_code <= 0)) ::raise(sig);  // sent, not a fault: send again
}

}  // namespace

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
  }
  return "a signal";
}

void install_fatal_signal_report(const char* command, int report_fd) {
  g_command = command;
  g_report_fd = report_fd;
  // Its own stack: a fault from a stack overflow would find no room on the thread's own.
  static char alternate[64 * 1024];
  stack_t ss{};
  ss.ss_sp = alternate;
  ss.ss_size = sizeof alternate;
  ::sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_sigaction = on_fatal_signal;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (int sig : kFatalSignals) ::sigaction(sig, &sa, nullptr);
}

void set_fatal_signal_stage(const char* stage) { g_stage = stage; }

std::string library_holding(const void* address) {
  char out[1024];
  find_library(reinterpret_cast<uintptr_t>(address), out, sizeof out);
  return out;
}

}  // namespace dlready
