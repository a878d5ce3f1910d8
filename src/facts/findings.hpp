// Findings and the verdict: the output of the rules, the input of the renderers.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace dlready {

enum class Severity { info, warning, error };
const char* to_string(Severity s);

struct Finding {
  std::string id;        // stable, kebab-case, documented in docs/findings.md
  Severity severity = Severity::error;
  std::string title;     // one line
  std::string check;     // the report section it belongs to (gpu, kernel-driver, ...)
  std::vector<std::string> evidence;  // facts and paths that triggered it
  std::vector<std::string> fix;       // exact commands or steps, in order
};

struct TorchVerdict {
  std::string location;  // site-packages dir
  std::string version;
  std::optional<std::string> cuda;
  bool cuda_available = false;  // our prediction of torch.cuda.is_available()
  std::optional<bool> mps_available;  // on a Mac: of torch.backends.mps.is_available()
  std::string reason;
};

struct Recommendation {
  std::string title;
  std::vector<std::string> commands;
};

struct Verdict {
  std::optional<bool> cuda_usable;  // null: could not tell (driver probe not run)
  bool cpu_training_ok = true;
  std::string summary;
  std::vector<TorchVerdict> torch;
};

struct Report {
  std::vector<Finding> findings;
  Verdict verdict;
  std::vector<Recommendation> recommendations;
  // Sections whose facts describe a layer that has nothing to stand on (no NVIDIA GPU: the
  // kernel driver, device nodes, libcuda and cuInit): shown as "–", never as a green ✓.
  std::vector<std::string> not_applicable;
};

}  // namespace dlready
