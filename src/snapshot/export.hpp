// `dlready export`: a snapshot's PyTorch stack as a file that rebuilds it elsewhere —
// requirements.txt, a conda environment.yml, or a Dockerfile.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/exit_code.hpp"

namespace dlready {

struct Exported {
  std::string error;  // why nothing could be exported ("" = fine)
  bool not_a_snapshot = false;  // the document is no snapshot at all (a usage error, like for diff)
  std::string text;
  std::vector<std::string> warnings;  // for stderr: what the lock does not carry, and why
};

// format: requirements | conda | dockerfile
Exported export_stack(const nlohmann::json& snapshot, const std::string& format);

// `dlready export` whole: the snapshot read, the lock written to `out` atomically (or to standard
// output when empty); what is wrong in one line on standard error.
ExitCode run_export_command(const std::string& snapshot_path, const std::string& format, const std::string& out);

}  // namespace dlready
