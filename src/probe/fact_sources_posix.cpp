// The sources of facts of the Linux build (and of the macOS build to come, which reads the same
// roots): Linux machines, live or under a root. macOS's source joins this list.
#include "probe/gather.hpp"
#include "probe/linux/probes.hpp"

namespace dlready {

std::vector<FactSource> fact_sources() { return {linux_fact_source()}; }

}  // namespace dlready
