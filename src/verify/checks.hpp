// `dlready verify`: a registry of small checks of real work on one device. Each check says whether
// it applies to the device (and why not) and returns PASS / WARN / FAIL with what it saw.
#pragma once
#include <torch/torch.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "torch_runtime/numeric.hpp"

namespace dlready {

enum class CheckStatus { pass, warn, fail, skipped };
const char* to_string(CheckStatus s);  // "PASS", "WARN", "FAIL", "SKIPPED"

struct CheckResult {
  CheckStatus status = CheckStatus::pass;
  std::string detail;           // one line: what was measured, or why it failed / was skipped
  nlohmann::json data = nlohmann::json::object();  // the figures behind the detail
};

struct CheckContext {
  torch::Device device = torch::kCPU;
  bool full = false;     // --level full: larger sizes, memory filled until out-of-memory
  int cuda_devices = 0;  // usable CUDA devices on the machine (for the all-reduce)
};

struct Check {
  std::string id;
  std::string title;
  // A reason the check does not apply to this device, or nullopt when it does.
  std::function<std::optional<std::string>(const CheckContext&)> not_applicable;
  std::function<CheckResult(const CheckContext&)> run;
};

// The checks, in the order they run.
std::vector<Check> check_registry();

// Runs one check: SKIPPED with the reason when it does not apply; an exception is a FAIL that
// quotes it.
CheckResult run_check(const Check& check, const CheckContext& ctx);

// The checks by group (each file adds its own).
void add_compute_checks(std::vector<Check>& out);
void add_memory_checks(std::vector<Check>& out);
void add_collective_checks(std::vector<Check>& out);

}  // namespace dlready
