// Runs a function in a short-lived child process with a timeout. The child reports "key=value"
// lines through a pipe as it goes, so a hang or crash midway still leaves what it learned.
// Why a child: a broken driver can hang or crash, and CUDA must never be initialised in the
// doctor's own process (a CUDA context does not survive fork, and we stay lightweight).
#pragma once
#include <functional>
#include <map>
#include <string>

#include "probe/driver_children.hpp"

namespace dlready {


// `body` gets a writer that emits one "key=value" line. Its return value is the exit code.
using ChildBody = std::function<int(const std::function<void(const std::string&, const std::string&)>&)>;
ChildResult run_child_probe(const ChildBody& body, int timeout_ms);

}  // namespace dlready
