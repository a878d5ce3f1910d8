// Facts only macOS has (src/probe/macos/ fills them; null elsewhere). Plain data (std::nullopt =
// unknown: a live call whose answer a replayed Mac root does not hold); the tables say how each
// field is written (facts/fact_table.hpp).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "facts/fact_table.hpp"

namespace dlready {

// A Python interpreter as its Mach-O file says: which CPUs it runs on natively.
struct MacPython {
  std::string prefix;
  std::optional<std::string> interpreter;   // <prefix>/bin/python3.X, links followed
  std::vector<std::string> cpus;            // its slices: arm64, x86_64 (both: universal2)
  std::optional<std::string> conda_subdir;  // conda-meta's "subdir": osx-arm64, osx-64
  // PEP 668's EXTERNALLY-MANAGED beside its standard library (Homebrew's Pythons): pip refuses to
  // install into it outside a virtual environment.
  bool externally_managed = false;
  std::optional<std::string> error;         // the interpreter could not be read as Mach-O
};

// What `import torch` and torch.backends.mps would find, read from libtorch_cpu.dylib.
struct MacTorchCheck {
  std::string site_packages;
  std::optional<std::string> library;   // .../torch/lib/libtorch_cpu.dylib (conda-forge: <env>/lib)
  std::vector<std::string> cpus;        // its slices
  std::optional<std::string> minos;     // the oldest macOS its loader accepts (LC_BUILD_VERSION)
  std::optional<bool> mps_built;        // weak-links MetalPerformanceShadersGraph: torch._C._has_mps
  // The OpenMP runtimes one process of this environment can load (torch's libomp, scikit-learn's
  // .dylibs copy, conda's llvm-openmp or MKL's libiomp5): two initialised in one process abort it
  // ("OMP: Error #15") or crash it.
  std::vector<std::string> openmp;
  std::optional<std::string> error;
};

// A Metal device as MTLCopyAllDevices lists it, with the two questions torch's MPSDevice asks.
struct MetalDevice {
  std::string name;
  bool low_power = false;  // an Intel integrated GPU: torch skips it
  bool mac2 = false;       // supportsFamily:MTLGPUFamilyMac2 (2002): a virtual device fails it
};

// The live Metal probe's answer (a child process on the Mac; recorded in a capture's manifest).
struct MetalProbe {
  std::vector<MetalDevice> devices;
  // MPSGraph answers the selector each torch release's MPS gate tests, by the macOS it marks
  // ("12.3", "13.0", "14.0" -> true/false).
  std::map<std::string, bool> mpsgraph_gates;
  std::optional<std::string> error;  // the child could not ask Metal (and why)
};

struct MacosFacts {
  // /System/Library/CoreServices/SystemVersion.plist; a process on an old SDK reads the shim's
  // 10.16 (for 11 and later) or 16.x (for 26): `version_shimmed` says so, and the Darwin release
  // (kern.osrelease, never shimmed) gives the real major.
  std::optional<std::string> product_version, build;
  bool version_shimmed = false;
  std::optional<std::string> darwin_release;  // kern.osrelease: 23.6.0 is macOS 14
  std::optional<bool> apple_silicon;          // hw.optional.arm64 (1 also inside Rosetta)
  std::optional<bool> translated;             // sysctl.proc_translated: the doctor itself runs under Rosetta
  std::optional<bool> virtual_machine;        // kern.hv_vmm_present
  std::optional<std::string> model, cpu_brand;  // hw.model (VirtualMac2,1 in a VM), machdep.cpu.brand_string
  std::vector<MacPython> pythons;
  std::vector<MacTorchCheck> torch;
  // Where pip is told to look for packages ("PIP_INDEX_URL: https://download.pytorch.org/whl/cu124",
  // "~/.config/pip/pip.conf: index-url = ..."), credentials removed.
  std::vector<std::string> pip_indexes;
  std::optional<MetalProbe> metal;  // unknown under a root whose capture did not record it
};

// The macOS version to compare with: the plist's, unless it answered the compatibility shim (then
// "<major>.0" from the Darwin release); nullopt when neither is known.
[[nodiscard]] std::optional<std::string> effective_macos_version(const MacosFacts& m);

// macOS's major version from the Darwin release ("23.6.0" -> 14; 20 -> 11 ... 24 -> 15, 25 -> 26).
[[nodiscard]] std::optional<int> macos_major_from_darwin(const std::string& release);

const FactTable<MacosFacts>& macos_fields();
const FactTable<MacPython>& mac_python_fields();
const FactTable<MacTorchCheck>& mac_torch_check_fields();
const FactTable<MetalProbe>& metal_probe_fields();
const FactTable<MetalDevice>& metal_device_fields();

}  // namespace dlready
