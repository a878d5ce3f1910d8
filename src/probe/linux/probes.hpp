// One source of facts per file; each returns a plain struct and never prints.
#pragma once
#include <chrono>
#include <map>
#include <set>
#include <string>

#include "facts/facts.hpp"
#include "core/redact.hpp"
#include "facts/capture_manifest.hpp"
#include "os/root_fs.hpp"
#include "probe/gather.hpp"
#include "probe/linux/library_locator.hpp"
#include "probe/posix/posix_probes.hpp"

namespace dlready {

// The Linux source of facts (probe/gather.hpp): every probe in order through RootFs, live or under a
// root; it names the platform of a root (a capture's, else macOS's or Windows' own files).
FactSource linux_fact_source();
// The environment this executable was installed into (<prefix>/bin/dlready by pip, uvx or pipx);
// nullopt when it is not in a bin/ folder.
std::optional<std::string> own_environment();

class ScanCache;
// `cache`: the doctor's cache, which keeps dpkg's versions and glibc's release while their files
// are unchanged; nullptr reads them every time (a capture must read what it records).
OsFacts probe_os(const RootFs& fs, const LibraryLocator& loc, ScanCache* cache = nullptr);
// The processor of the machine under `fs`: uname's on this machine, its loader's name under a root
// (nullopt when it has none).
std::optional<std::string> machine_of_root(const RootFs& fs);
// An aarch64 machine's platform (Jetson, Grace, page size); nullopt on another machine.
std::optional<ArmFacts> probe_arm(const RootFs& fs, const std::optional<std::string>& arch);
// With pages above 4 KiB: the environments' shared objects aligned below the page size.
void probe_page_alignment(const RootFs& fs, const PythonFacts& python, ArmFacts& a);
// The ptxas torch.compile's Triton would run in each environment with torch and Triton
// (TRITON_PTXAS_PATH, torch/bin/ptxas, Triton's own) and the CUDA release it is from; `scan` reads
// the program without recording it into a capture.
void probe_triton_ptxas(const RootFs& fs, const RootFs& scan, const PythonFacts& python, const EnvFacts& env,
                        ArmFacts& a);
// /proc/loadavg, and the running processes when the load exceeds `cpus` (train asks it too).
CpuLoad probe_cpu_load(const RootFs& fs, std::optional<int> cpus);
// Processors kept busy over `window` (the "cpu" line of /proc/stat read twice, all but idle and
// iowait), when /proc/loadavg says anything but the reader runs; nullopt = idle or unknown.
// Slept through by the caller: the caller's own use is in the figure only as far as it ran.
std::optional<double> busy_processors(const RootFs& fs, int cpus, int window_ms);
// The same in two halves, so the caller works through the window (train loads its data): the
// figure leaves out this process's own processor time. nullopt from start = idle or unknown.
struct BusySample {
  double busy = 0, total = 0, own = 0;  // jiffies: all processors busy, all, this process's
  std::chrono::steady_clock::time_point started;
};
std::optional<BusySample> start_busy_sample(const RootFs& fs, int cpus);
// A sample as text ("busy total own started_ns") and back, to be handed from the binary (which
// starts it before LibTorch loads) to the module in the same process; nullopt for anything else.
std::string busy_sample_text(const BusySample& s);
std::optional<BusySample> parse_busy_sample(std::string_view text);
// Waits until `min_window_ms` have passed since the start, then samples again.
std::optional<double> finish_busy_sample(const RootFs& fs, const BusySample& s, int cpus, int min_window_ms);
PciFacts probe_pci(const RootFs& fs);
KernelDriverFacts probe_kernel_driver(const RootFs& fs, const std::optional<std::string>& kernel);
DeviceNodeFacts probe_device_nodes(const RootFs& fs, const UserIdentity& user);
CudaLibFacts probe_cuda_libs(const RootFs& fs, const LibraryLocator& loc, const EnvFacts& env);
LibtorchFacts probe_libtorch(const RootFs& fs, const EnvFacts& env, const PythonFacts& py);
// `moved_torch_lib`: the torch/lib the module loads instead of its run path's (gone); `problem`: why
// it cannot load at all (the torch it needs is nowhere), said as the module's error.
OwnModuleFacts probe_own_module(const RootFs& fs, const std::string& module, const EnvFacts& env,
                                const std::optional<std::string>& moved_torch_lib = std::nullopt,
                                const std::optional<std::string>& problem = std::nullopt);
std::vector<CdiSpec> probe_cdi_specs(const RootFs& fs);
BlasFacts probe_blas(const RootFs& fs, const LibraryLocator& loc, const PythonFacts& py, const LibtorchFacts& lt);

// Parsers exposed for tests and fuzzing (pure functions over text).
// "0.52 0.58 0.59 3/456 12345" -> load_1min 0.52, runnable 3.
CpuLoad parse_loadavg(const std::string& text);
std::optional<std::string> parse_nvidia_proc_version(const std::string& line);
std::optional<std::string> parse_os_release_value(const std::string& text, const std::string& key);
std::optional<uint64_t> parse_shm_size_from_mounts(const std::string& mounts);
// The driver versions a CDI spec's host paths name: ".so.<digits and dots>" (libcuda.so.580.65.06).
std::vector<std::string> parse_cdi_driver_versions(const std::string& spec_text);
// Every (vendor, device) name of the given vendors in a pci.ids text, keyed "10de:2330"; one pass.
std::map<std::string, std::string> pci_names(const std::string& pci_ids, const std::set<std::string>& vendors);
std::optional<std::string> lookup_pci_name(const std::string& pci_ids, const std::string& vendor,
                                           const std::string& device);

}  // namespace dlready
