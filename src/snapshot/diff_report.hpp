// `dlready diff A B` as it prints: the differences area by area with why each area matters and
// what they mean for each side's PyTorch on the other machine, as text or as JSON (schema
// dlready.diff/1). Shared by the Linux and the Windows binaries.
#pragma once
#include <string>

#include "core/exit_code.hpp"
#include "snapshot/stack.hpp"

namespace dlready {

struct DiffReport {
  std::string text;     // what to print
  size_t differences = 0;
};

// `before_path` and `after_path` name the files (the snapshots' hosts and times are added).
DiffReport render_diff(const Stack& before, const std::string& before_path, const Stack& after,
                       const std::string& after_path, bool json);

// `dlready diff` whole: both files read (a file that is no snapshot: one line, exit 2), the report
// on standard output; 1 when they differ.
ExitCode run_diff_command(const std::string& before_path, const std::string& after_path, bool json);

}  // namespace dlready
