#include "os/stop_signal.hpp"

#include <csignal>

namespace dlready {
namespace {

// A signal handler can only reach static storage: this flag is the one piece of global state,
// written by the handler and read between training steps.
volatile std::sig_atomic_t stop_requested = 0;

extern "C" void on_stop_signal(int sig) {
  if (stop_requested) {  // the second signal: stop now, the default way (async-signal-safe calls only)
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    ::sigaction(sig, &dfl, nullptr);
    ::raise(sig);
    return;
  }
  stop_requested = 1;
}

}  // namespace

StopOnSignal::StopOnSignal() {
  stop_requested = 0;
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &sa, &previous_int_);
  ::sigaction(SIGTERM, &sa, &previous_term_);
  // A signal the parent chose to ignore (a shell's background job, nohup) stays ignored.
  if (previous_int_.sa_handler == SIG_IGN) ::sigaction(SIGINT, &previous_int_, nullptr);
  if (previous_term_.sa_handler == SIG_IGN) ::sigaction(SIGTERM, &previous_term_, nullptr);
}

StopOnSignal::~StopOnSignal() {
  ::sigaction(SIGINT, &previous_int_, nullptr);
  ::sigaction(SIGTERM, &previous_term_, nullptr);
  stop_requested = 0;  // a request belongs to the work this object guarded
}

bool StopOnSignal::requested() const { return stop_requested != 0; }

bool stop_signal_requested() { return stop_requested != 0; }

}  // namespace dlready
