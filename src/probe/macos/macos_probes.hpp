// The macOS source of facts: a Mac's files through RootFs (the live machine on a Mac; a Mac's
// capture or fixture root replayed on Linux) and what only a system call answers (sysctl) through
// one seam a capture's manifest answers. It fills the same fact groups as the other sources, and
// MacosFacts for what only a Mac has.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "facts/facts.hpp"
#include "os/root_fs.hpp"
#include "probe/gather.hpp"

namespace dlready {

// The answers of sysctl by name ("hw.optional.arm64" -> "1"); a name missing is unknown.
using SysctlAnswers = std::map<std::string, std::string>;

// SystemVersion.plist's ProductVersion and ProductBuildVersion (the compatibility shim's 10.16 and
// 16.x kept as read, flagged), the Darwin release's macOS major beside it.
void probe_macos_version(const RootFs& fs, const SysctlAnswers& sysctl, MacosFacts& mac, OsFacts& os);
// The processor, Rosetta and virtual-machine facts from sysctl.
void probe_macos_hardware(const SysctlAnswers& sysctl, MacosFacts& mac, OsFacts& os);
// Each Python's interpreter and each PyTorch's libtorch_cpu.dylib read as Mach-O files.
void probe_mac_binaries(const RootFs& fs, const PythonFacts& python, MacosFacts& mac);

// Where pip looks for packages: PIP_INDEX_URL and its kin, the pip.conf files a Mac's pip reads.
void probe_pip_indexes(const RootFs& fs, const std::map<std::string, std::string>& env, const PythonFacts& python,
                       MacosFacts& mac);

// The Metal probe's lines (metal_wire.cpp): written by the child, read by the parent and tests.
[[nodiscard]] std::string metal_wire_line(const std::vector<std::string>& fields);
[[nodiscard]] MetalProbe parse_metal_wire(const std::string& text);
// The macOS build's live probe (metal_probe.cpp): `dlready --metal-child` prints its lines;
// ask_metal spawns it and reads them (killed after timeout_ms).
int run_metal_child();
[[nodiscard]] MetalProbe ask_metal(int timeout_ms);

// What only the Mac itself answers: sysctl, and Metal when the live probe ran.
struct MacLive {
  SysctlAnswers sysctl;
  std::optional<MetalProbe> metal;
};

// A Mac's facts: under a root, sysctl's and Metal's answers from its capture; on the Mac itself
// (`live`), the live answers and the process's environment.
GatherResult gather_mac(const GatherOptions& options, const MacLive* live);
// The macOS source (probe/gather.hpp) that replays a Mac's root, on every POSIX build.
FactSource macos_fact_source();
// The macOS build's own source: this Mac, live (probe/macos/live_macos.cpp), and Mac roots.
FactSource macos_live_fact_source();

}  // namespace dlready
