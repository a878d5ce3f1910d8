// The sources of facts of the Windows build: the machine it runs on, and Windows captures.
#include "probe/gather.hpp"
#include "probe/windows/windows_probes.hpp"

namespace dlready {

std::vector<FactSource> fact_sources() { return {windows_fact_source(), windows_capture_source()}; }

}  // namespace dlready
