// The sources of facts of the macOS build: this Mac, live, Macs under a root, and Windows captures.
#include "probe/gather.hpp"
#include "probe/windows/windows_probes.hpp"
#include "probe/macos/macos_probes.hpp"

namespace dlready {

std::vector<FactSource> fact_sources() { return {macos_live_fact_source(), windows_capture_source()}; }

}  // namespace dlready
