// Linux's side of the driver probes' children (probe/driver_children.hpp is the rest): the library
// opened with dlopen, and the child forked — or its answer recorded or replayed from a capture.
#pragma once
#include <functional>
#include <optional>
#include <string>

#include "facts/capture_manifest.hpp"
#include "facts/device_fields.hpp"
#include "os/root_fs.hpp"
#include "facts/facts.hpp"
#include "probe/linux/child_probe.hpp"

namespace dlready {

// In the child: dlopen with the loader's own error text reported ("load_error"); nullptr when the
// library cannot be loaded. Its entry points through dlsym.
void* open_library(const std::string& path, const Emit& emit);
SymbolLookup dlsym_lookup(void* library);
// The seam between a driver probe and its child: forked here (and its answer noted in the root's
// access log when one records: `dlready capture`), or, when `replay` is a capture's manifest, its
// recorded answer — nullopt when the capture holds none (made with --no-driver-probe).
std::optional<ChildResult> run_driver_child(const RootFs& fs, const CaptureManifest* replay, const std::string& name,
                                            const ChildBody& body, int timeout_ms);

}  // namespace dlready
