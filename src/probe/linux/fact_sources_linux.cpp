// The sources of facts of the Linux build: Linux machines, live or under a root, Macs under a root
// (a Mac's capture or fixture, replayed) and Windows captures, replayed.
#include "probe/gather.hpp"
#include "probe/windows/windows_probes.hpp"
#include "probe/linux/probes.hpp"
#include "probe/macos/macos_probes.hpp"

namespace dlready {

std::vector<FactSource> fact_sources() { return {linux_fact_source(), macos_fact_source(), windows_capture_source()}; }

}  // namespace dlready
