// The exit statuses of every dlready command, in one place.
#pragma once

namespace dlready {

enum class ExitCode : int {
  ok = 0,           // doctor: no error finding; verify: READY; train/bench: done
  failed = 1,       // doctor: an error finding; verify: NOT READY; train: bad data, NaN, ...
  usage = 2,        // bad arguments, or the doctor could not run (unreadable --root, unknown --user)
  cannot_load = 3,  // the LibTorch module (or a library it needs) could not be loaded
  interrupted = 130,  // stopped by SIGINT/SIGTERM with the state saved
};

constexpr int to_int(ExitCode c) { return static_cast<int>(c); }

}  // namespace dlready
