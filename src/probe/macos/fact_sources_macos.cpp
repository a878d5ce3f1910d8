// The sources of facts of the macOS build: this Mac, live, and Macs under a root.
#include "probe/gather.hpp"
#include "probe/macos/macos_probes.hpp"

namespace dlready {

std::vector<FactSource> fact_sources() { return {macos_live_fact_source()}; }

}  // namespace dlready
