// The Windows build's twin of setup_index.cpp: it plans from dlready's tables and reads no index
// (the POSIX builds fetch the pages with curl, which a Windows machine need not have).
#include "setup/setup_index.hpp"

namespace dlready {

std::optional<IndexReleases> read_torch_indexes(const PlanMachine&, std::string& note) {
  note = "the Windows build plans from dlready's tables";
  return std::nullopt;
}

}  // namespace dlready
