// `dlready export --hashes`: the sha256 of every file the index serves for each pin of a lock, so
// that `pip install --require-hashes -r FILE` installs exactly those files. The hashes come from
// the index's simple API (PyPI's JSON "hashes", PEP 503's "#sha256="), read as setup reads it:
// a pin with a local version ("+cu130") from PyTorch's index for that variant, the rest from PyPI
// (or the given mirrors). A wheel's RECORD inside site-packages hashes the files it unpacked, not
// the wheel itself, so the installed environment cannot give these.
#pragma once
#include <string>
#include <vector>

#include "snapshot/export.hpp"

namespace dlready {

// `pypi`: the simple index of everything else ("" for PIP_INDEX_URL, UV_INDEX_URL, else
// https://pypi.org/simple/, as setup's plan); `torch_index`: PyTorch's
// (https://download.pytorch.org/whl/; "" for DLREADY_TORCH_INDEX, else that), each variant under it.
[[nodiscard]] LockHashes find_lock_hashes(const std::vector<LockPin>& pins, const std::string& pypi,
                                          const std::string& torch_index);

// The files of `page` that are `pin`'s (a wheel or an sdist of that project at that exact version).
std::vector<std::string> pin_hashes(const std::string& page, const LockPin& pin);

}  // namespace dlready
