// A finding that an error message proves by its own words (a signature's `decides`: "… sm_120 is
// not compatible with the current PyTorch installation" is arch-not-supported), with the message as
// its evidence and what a pasted report adds to it: ldd's line for the library the loader picked,
// the LD_LIBRARY_PATH that put it first, the torch and CUDA build the report names. Pure.
#pragma once
#include <string>

#include "diagnose/error_signatures.hpp"
#include "facts/findings.hpp"
#include "diagnose/pasted_report.hpp"
#include "facts/facts.hpp"

namespace dlready {

// The finding `m.signature->decides`, its evidence the message (and the report's facts where they
// bear on it), its fix the message's advice made concrete. `facts` and `loader` may be empty.
[[nodiscard]] Finding message_finding(const SignatureMatch& m, const Facts& facts, const PastedLoader& loader);

}  // namespace dlready
