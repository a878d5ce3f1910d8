// A finding that an error message proves by its own words (a signature's `decides`: "… sm_120 is
// not compatible with the current PyTorch installation" is arch-not-supported; for some messages
// the values decide — "libcudnn.so.9: cannot open shared object file" is a CUDA library, a `docker
// run` without --gpus beside "Found no NVIDIA driver" is the container), with the message as its
// evidence and what a pasted report adds to it: ldd's line for the library the loader picked, the
// LD_LIBRARY_PATH that put it first, the torch the report names. Pure.
#pragma once
#include <string>

#include "diagnose/error_signatures.hpp"
#include "diagnose/pasted_report.hpp"
#include "facts/facts.hpp"
#include "facts/findings.hpp"

namespace dlready {

// The finding the message (with the report's clues) proves, or "" when it points to several.
[[nodiscard]] std::string decided_finding(const SignatureMatch& m, const PastedClues& clues);

// That finding, its evidence the message (and the report's facts where they bear on it), its fix
// the message's advice made concrete. `facts` and `clues` may be empty.
[[nodiscard]] Finding message_finding(const SignatureMatch& m, const Facts& facts, const PastedClues& clues);

}  // namespace dlready
