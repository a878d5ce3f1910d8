// The sources of facts of the Linux build: Linux machines, live or under a root, and Macs under a
// root (a Mac's capture or fixture, replayed).
#include "probe/gather.hpp"
#include "probe/linux/probes.hpp"
#include "probe/macos/macos_probes.hpp"

namespace dlready {

std::vector<FactSource> fact_sources() { return {linux_fact_source(), macos_fact_source()}; }

}  // namespace dlready
