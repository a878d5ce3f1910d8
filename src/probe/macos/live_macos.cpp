// The macOS build's live answers: sysctl by name (what the capture's manifest records for a replay).
// Compiled only for macOS (nothing here runs it: cross-built with zig, not run on a Mac).
#include <sys/sysctl.h>
#include <sys/types.h>

#include <cstdint>
#include <string>

#include "probe/macos/macos_probes.hpp"
#include "probe/posix/posix_probes.hpp"

namespace dlready {
namespace {

// A sysctl value as text: an integer's decimal, a string's bytes; absent when the name is unknown
// here (sysctl.proc_translated on an Intel Mac).
void ask(SysctlAnswers& out, const char* name, bool integer) {
  if (integer) {
    int64_t v = 0;
    size_t size = sizeof v;
    if (::sysctlbyname(name, &v, &size, nullptr, 0) != 0) return;
    // 4-byte values fill the low half on these little-endian Macs.
    if (size == 4) v = static_cast<int32_t>(v & 0xffffffff);
    out[name] = std::to_string(v);
    return;
  }
  char text[256] = "";
  size_t size = sizeof text - 1;
  if (::sysctlbyname(name, text, &size, nullptr, 0) == 0) out[name] = std::string(text, size > 0 && text[size - 1] == '\0' ? size - 1 : size);
}

SysctlAnswers live_sysctl() {
  SysctlAnswers s;
  for (const char* n : {"hw.optional.arm64", "sysctl.proc_translated", "kern.hv_vmm_present", "hw.ncpu", "hw.memsize"})
    ask(s, n, true);
  for (const char* n : {"kern.osrelease", "hw.model", "machdep.cpu.brand_string"}) ask(s, n, false);
  return s;
}

GatherResult gather_this_mac(const GatherOptions& options) {
  MacLive live;
  live.sysctl = live_sysctl();
  if (options.driver_probe) live.metal = ask_metal(options.probe_timeout_ms);
  if (options.record) options.record->sysctl = live.sysctl;  // what a capture records
  return gather_mac(options, &live);
}

}  // namespace

FactSource macos_live_fact_source() { return {Platform::macos, gather_this_mac, root_platform}; }

}  // namespace dlready
