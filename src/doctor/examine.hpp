// The doctor's whole sequence — gather the facts, apply the rules — written once for every command
// that needs the doctor's view of this machine (doctor, snapshot, and the LibTorch commands that
// explain why CUDA cannot be used or why the module does not load).
#pragma once
#include <map>
#include <string>

#include "facts/facts.hpp"
#include "facts/findings.hpp"
#include "probe/gather.hpp"

namespace dlready {

struct Examination {
  Facts facts;
  Report report;
  std::string error;  // the facts could not be gathered (unreadable --root, unknown --user): nothing else holds
  // The environment and user the facts describe (a replayed capture's, under a capture's root).
  std::map<std::string, std::string> env;
  UserIdentity user;
  bool replayed = false;
  // What --redact hides on the examined machine (GatherOptions::redaction_inputs): every command that
  // redacts takes it from here, never from the process it runs in.
  std::optional<RedactionInputs> redaction;
};

// Probes the driver in child processes: call it before CUDA is initialised in this process.
Examination examine(const GatherOptions& options);
// This machine as the running process sees it (its environment, /).
Examination examine_this_machine();

// The error findings as one line ("title [id]; title [id]"), or why the doctor could not run, or
// `none` when it found no error.
std::string error_findings_line(const Examination& e, const std::string& none);

}  // namespace dlready
