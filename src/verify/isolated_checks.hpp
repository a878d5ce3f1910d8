// Each device's checks run in a child process, so a check that kills its process (a fault in a
// CUDA library: the first GPU machine lent saw cuDNN's convolution die of SIGSEGV) is a FAIL for
// that check, naming the signal and the library, and the other checks and devices still run.
// The parent never initialises CUDA: a CUDA context does not survive fork(), so asking how many
// devices there are happens in a child too.
#pragma once
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "verify/checks.hpp"

namespace dlready {

struct CheckOutcome {
  const Check* check = nullptr;
  CheckResult result;
};

// Runs `checks` on ctx.device in child processes: one child runs them in order; when it dies, the
// check it was in is FAIL ("died of SIGSEGV in <library>") and a new child goes on with the next.
// `on_result` sees each outcome as it arrives.
std::vector<CheckOutcome> run_checks_isolated(const std::vector<Check>& checks, const CheckContext& ctx,
                                              const std::function<void(const CheckOutcome&)>& on_result);

// Runs `body` in a child process and returns the JSON it produced, or an error that names how the
// child ended ("died of SIGSEGV in /usr/lib/libcuda.so.1").
struct IsolatedJson {
  nlohmann::json value;
  std::string error;
};
IsolatedJson run_isolated_json(const char* stage, const std::function<nlohmann::json()>& body);

}  // namespace dlready
