// Compatibility facts the rules need, each row with its source. The table date is reported.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace dlready {

inline constexpr const char* kCompatTableDate = "2026-12-05";

struct CudaMajorDriverMin {
  int cuda_major;
  std::string min_driver_linux;  // minor-version compatibility floor
  std::string source;
};
const std::vector<CudaMajorDriverMin>& cuda_major_driver_minimums();
std::optional<std::string> min_driver_for_cuda(const std::string& cuda_version);  // "12.1" -> 525.60.13
// The same floor for Windows' drivers ("12.1" -> 528.33).
std::optional<std::string> min_windows_driver_for_cuda(const std::string& cuda_version);

struct DriverBranchCuda {
  int branch;            // R580 -> 580
  std::string max_cuda;  // "13.0"
  std::string source;
};
const std::vector<DriverBranchCuda>& driver_branch_max_cuda();
// A driver version's branch ("575.51.03" -> 575, "560.94" -> 560); nullopt for another text.
std::optional<int> driver_branch(const std::string& driver_version);
// Highest CUDA a driver version fully supports ("575.51.03" -> "12.9").
std::optional<std::string> max_cuda_for_driver(const std::string& driver_version);

struct TorchVariant {
  std::string torch;      // release line, "2.11"
  std::string variant;    // cu130
  std::string cuda;       // 13.0
  std::string arch_list;  // TORCH_CUDA_ARCH_LIST of the wheel ("7.5;8.0;...;12.0" or "...+PTX")
  bool pypi_default = false;
  std::string source;
};
// All rows of data/pytorch_cuda_arch.tsv (compiled in), in file order.
const std::vector<TorchVariant>& torch_variants();
// The same rows, release lines from the newest down, each one's CUDA variants from the newest down.
const std::vector<TorchVariant>& torch_variants_newest_first();
// The newest release line in the table ("2.14").
std::string newest_torch_release();
// The Linux aarch64 (SBSA) wheels' rows (data/pytorch_cuda_arch_aarch64.tsv).
const std::vector<TorchVariant>& torch_variants_aarch64();
// The newest-first rows of a machine's processor ("aarch64": the SBSA table; else x86_64's).
const std::vector<TorchVariant>& torch_variants_newest_first(const std::string& machine);
// The arch list a torch build ships, from its version ("2.5.1+cu124") and CUDA ("12.4"), for the
// machine's processor (uname's: x86_64, aarch64).
std::optional<std::string> known_arch_list(const std::string& torch_version, const std::string& cuda,
                                           const std::string& machine = "x86_64");
// Does an arch list (or a set of SASS/PTX archs) have code a device of compute capability
// major.minor can run? SASS: same major, minor <= device; PTX: any arch <= device (JIT).
bool arch_list_covers(const std::string& list, int major, int minor);
// Does SASS built for `sass` (86 = sm_86) run on a device of compute capability major.minor? Same
// major, minor up to the device's — except Orin's integrated 8.7, which runs only its own 8.7 code,
// and Thor (10.1 under CUDA 12, 11.0 under 13), which 10.0 code does not cover (torch 2.11's
// DEVICE_REQUIREMENT in torch/cuda/__init__.py; shared/knowledge/aarch64.md §1).
bool sass_runs_on(int sass, int major, int minor);
struct KnownGpu {
  std::string name;
  int cc_major = 0, cc_minor = 0;
};
// From data/gpus.tsv by PCI ids ("10de", "2b85").
std::optional<KnownGpu> gpu_by_pci_id(const std::string& vendor, const std::string& device);
// From data/gpus.tsv by the name people give (`setup --gpu H100`, "RTX 4090", "GH200", "A100"):
// case, spaces, dashes and the words NVIDIA/GeForce/Tesla do not matter. Every table name it is
// (one, or several of different capabilities: ambiguous); empty when none.
std::vector<KnownGpu> gpus_by_name(const std::string& text);
// The one name of a PCI GPU in every report and finding: pci.ids' (`pci_ids_name`, the machine's
// own file) when it knows the device, else data/gpus.tsv's, else "unknown NVIDIA device".
std::string pci_gpu_name(const std::optional<std::string>& pci_ids_name, const std::string& vendor,
                         const std::string& device);

// The CPython versions a release's Linux wheels exist for (data/pytorch_python.tsv), by release
// line ("2.11"); nullopt when the table has no row for it.
struct PythonRange {
  std::string min, max;  // "3.10", "3.14"
};
std::optional<PythonRange> python_range(const std::string& torch_release);

// The driver branches that drive a GPU of compute capability major.minor (data/driver_arch.tsv),
// with the architecture's name: the first (Ada R520, Blackwell R570; 0 where no plan reaches back
// that far) and the last (Kepler R470; Maxwell, Pascal, Volta R580; 0 while new branches support
// it).
struct DriverLimit {
  std::string arch;
  int first_branch = 0;
  int last_branch = 0;
};
std::optional<DriverLimit> driver_limits(int cc_major, int cc_minor);
// driver_limits with a last branch; nullopt while new branches still support the architecture.
std::optional<DriverLimit> last_driver_branch(int cc_major, int cc_minor);
// driver_limits with a first branch; nullopt where dlready knows none.
std::optional<DriverLimit> first_driver_branch(int cc_major, int cc_minor);

// "cuda" of CUDA's encoding 13000 -> "13.0"
std::string cuda_version_string(int encoded);

// The index of the wheels built for a Jetson's JetPack (Jetson AI Lab's jp6/cu126 for JetPack 6;
// JetPack 7's Thor runs server wheels); "" where dlready knows none (JetPack 5: NVIDIA's own wheels).
std::string jetson_index(const std::string& jetpack);

}  // namespace dlready
