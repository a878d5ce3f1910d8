// A fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) in the LibTorch half becomes one line
// on stderr that names the command, what it was doing and the library holding the faulting
// instruction, with the next step — then the process dies of the same signal, so the exit status
// and a core dump are what they would have been. The first GPU machine lent showed why: `dlready
// verify` died inside cuDNN with nothing but "Segmentation fault".
//
// Everything the handler does is async-signal-safe (write, open, read of /proc/self/maps); it runs
// on its own stack, so a stack overflow is reported too. The handler's state is the one piece of
// process-wide mutable state here: a signal handler has no other way to know the stage.
#pragma once
#include <string>

namespace dlready {

// `command` ("train", "verify"...) must outlive the process (a literal). `report_fd` >= 0: instead
// of the line on stderr, the handler writes "#fatal <SIGNAME> <library>\n" there in one write
// (verify's per-device child: its parent names the check that died, and where).
void install_fatal_signal_report(const char* command, int report_fd = -1);

// What the process is doing now ("loading the data", "check conv on cuda:0"): a string that stays
// valid until the next call. nullptr clears it.
void set_fatal_signal_stage(const char* stage);

// The library (path from /proc/self/maps) that holds `address` in this process; "" if none.
// Not async-signal-safe (it allocates): for tests and ordinary callers.
std::string library_holding(const void* address);

// "SIGSEGV" for SIGSEGV (and the other fatal signals, SIGKILL, SIGTERM, SIGINT); "a signal" for others.
const char* signal_name(int sig);

}  // namespace dlready
