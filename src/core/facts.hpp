// The facts the probes gather. Plain data only: probes fill these, rules read them, renderers
// print them. Anything not known is std::nullopt ("unknown"), never 0 or "".
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace dlready {

// How busy the CPUs are right now: /proc/loadavg, and which processes are running when the
// load exceeds the processors (a CPU training run slows tenfold beside them).
struct CpuLoad {
  std::optional<double> load_1min;            // /proc/loadavg, first field
  std::optional<int> runnable;                // /proc/loadavg, "R/T": R (includes the reader)
  std::vector<std::string> running_commands;  // comm of processes in state R (other than ours), busy only
};

struct OsFacts {
  std::optional<std::string> pretty_name;  // /etc/os-release PRETTY_NAME
  std::optional<std::string> id;           // /etc/os-release ID (debian, ubuntu, rhel, ...)
  std::optional<std::string> kernel;       // /proc/sys/kernel/osrelease
  std::optional<std::string> arch;         // uname machine (host only)
  std::optional<std::string> glibc;        // from the libc.so.6 the loader finds
  std::optional<std::string> libstdcxx;    // libstdc++.so.6.0.N file name
  std::optional<std::string> container;    // docker, podman, kubernetes, lxc
  bool wsl = false;                        // /proc/version mentions Microsoft
  bool wsl_dxg = false;                    // /dev/dxg exists
  bool wsl_libcuda = false;                // /usr/lib/wsl/lib/libcuda.so.1 exists
  std::optional<uint64_t> shm_bytes;       // size of /dev/shm
  std::optional<uint64_t> memory_bytes;    // MemTotal
  std::optional<uint64_t> swap_bytes;      // SwapTotal (0: no swap, so host memory is all there is)
  std::optional<int> cpu_count;            // processors in /proc/cpuinfo
  std::optional<std::string> cpu_model;
  CpuLoad load;
  std::optional<std::vector<std::string>> net_interfaces;  // /sys/class/net (nullopt: unreadable)
  std::vector<std::string> cpu_flags;       // /proc/cpuinfo "flags" (x86) or "Features" (arm64)
  std::vector<std::string> gcc_versions;    // the host's /usr/lib/gcc/<triplet>/<N> with cc1plus: "12"
  // `gcc --version` as collect_env prints it, from the distribution's package of the gcc on PATH:
  // "(Debian 12.2.0-14+deb12u1) 12.2.0"
  std::optional<std::string> gcc_version_text;
  std::vector<std::string> clang_versions;  // /usr/lib/llvm-<N>/lib/clang/<version>: "14.0.6"
  std::optional<std::string> cmake_version; // the cmake package's "3.25.1", else /usr/share/cmake-<X.Y>: "3.25"
};

struct PciFunction {
  std::string address;  // 0000:01:00.0
  std::string vendor_id, device_id, class_code;  // hex without 0x: 10de, 2684, 030000
  std::optional<std::string> name;               // from pci.ids
  std::optional<std::string> driver;             // bound kernel driver, nullopt = none
  std::optional<std::string> link_speed, max_link_speed;
  std::optional<int> link_width, max_link_width;
  std::vector<uint64_t> bar_sizes;  // BAR0..BAR5 sizes in bytes (0 = unassigned/absent)
  bool is_gpu = false;              // class 0x0300 / 0x0302
};

struct PciFacts {
  bool sysfs_readable = false;
  bool sysfs_denied = false;  // /sys/bus/pci/devices is there but this user may not list it
  std::optional<std::string> pci_ids_path;
  std::vector<PciFunction> nvidia;      // every vendor 0x10de function (GPUs, audio, NVSwitch)
  std::vector<PciFunction> other_gpus;  // display-class functions of other vendors (hybrid laptops)
};

struct KernelDriverFacts {
  std::optional<std::string> proc_version_line;  // first line of /proc/driver/nvidia/version
  std::optional<std::string> loaded_version;     // loaded nvidia module version
  bool open_kernel_module = false;
  bool nvidia_loaded = false, nvidia_uvm_loaded = false, nvidia_drm_loaded = false;
  bool nouveau_loaded = false, nova_core_loaded = false;
  std::optional<std::string> module_file;         // nvidia.ko for the running kernel
  std::optional<std::string> module_file_version; // its modinfo version (uncompressed only)
  bool fabric_manager_installed = false;          // nv-fabricmanager binary or unit present
  std::optional<bool> secure_boot;                // the SecureBoot EFI variable (nullopt: not an EFI boot, unreadable)
};

// A Container Device Interface specification (nvidia-ctk cdi generate): the host files it mounts
// into containers name the driver version they were generated for.
struct CdiSpec {
  std::string path;                          // /etc/cdi/nvidia.yaml
  std::vector<std::string> driver_versions;  // from the host paths (libcuda.so.580.65.06 -> 580.65.06)
};

struct DeviceNode {
  std::string path;
  bool exists = false;
  bool accessible = false;  // read+write for the user being checked
  std::optional<std::string> mode;  // "crw-rw-rw-" style
  std::optional<std::string> owner, group;  // names from /etc/passwd and /etc/group (else the number)
};

struct DeviceNodeFacts {
  std::string checked_user;  // "root", "alice (uid 1000)"
  std::vector<DeviceNode> nodes;  // /dev/nvidiactl, /dev/nvidia0.., /dev/nvidia-uvm, /dev/dxg
  // The users in the group of /dev/nvidiactl: its /etc/group members and those whose primary group it is.
  std::vector<std::string> group_members;
  // /proc/driver/nvidia/params: DeviceFileUID, DeviceFileGID, DeviceFileMode (decimal, as the driver prints).
  std::map<std::string, std::string> driver_params;
};

struct LibraryLocation {
  std::string soname;
  std::optional<std::string> path;       // what the loader would open (inside the root)
  std::optional<std::string> real_path;  // after symlinks
  std::optional<std::string> version;    // from the real file name (libcuda.so.580.65.06 -> ...)
  std::string found_via;                 // LD_LIBRARY_PATH, ld.so.cache, default dir
  std::vector<std::string> searched;     // directories looked in, in order
  bool stub = false, compat = false, wsl = false;
  bool found() const { return path.has_value(); }
};

struct CudaDevice {
  int index = 0;
  std::optional<std::string> name, pci_bus_id, uuid;
  std::optional<int> cc_major, cc_minor, sm_count;
  std::optional<uint64_t> memory_bytes;
  std::optional<int> compute_mode;  // CUdevice_attribute COMPUTE_MODE: 0 default, 2 prohibited, 3 exclusive
};

enum class ProbeStatus { not_run, ok, load_failed, symbol_missing, timeout, crashed, failed };
const char* to_string(ProbeStatus s);

struct DriverApiFacts {
  ProbeStatus status = ProbeStatus::not_run;
  std::optional<std::string> library;  // the file dlopen'ed
  std::string detail;                  // dlerror(), missing symbol, signal, ...
  std::optional<int> init_result;      // cuInit(0)
  std::optional<std::string> init_error_name;
  std::optional<int> driver_version;   // cuDriverGetVersion: 13000 = CUDA 13.0
  std::optional<int> device_count;
  std::vector<CudaDevice> devices;
  double elapsed_ms = 0;
};

struct NvmlDevice {
  int index = 0;
  std::optional<std::string> name, pci_bus_id, uuid;
  std::optional<int> compute_mode;         // nvmlComputeMode_t
  std::optional<int> mig_current, mig_pending;  // 1 = enabled
  std::optional<int> mig_instances;        // GPU instances present when MIG is enabled
  std::optional<int> persistence;          // 1 = enabled
  std::optional<uint64_t> memory_total, memory_used;
  std::optional<int> pcie_gen, pcie_gen_max, pcie_width, pcie_width_max;
  std::optional<uint64_t> bar1_total;  // nvmlDeviceGetBAR1MemoryInfo: the BAR1 the driver mapped
};

struct NvmlFacts {
  ProbeStatus status = ProbeStatus::not_run;
  std::optional<std::string> library;
  std::string detail;
  std::optional<int> init_result;  // nvmlInit_v2
  std::optional<std::string> driver_version;
  std::optional<int> cuda_driver_version;
  std::optional<int> device_count;
  std::vector<NvmlDevice> devices;
};

struct EnvFacts {
  // Only the variables the doctor cares about; absent = unset.
  std::map<std::string, std::string> vars;
  std::optional<std::string> get(const std::string& k) const {
    auto it = vars.find(k);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  }
};

struct CudaToolkit {
  std::string path;
  std::optional<std::string> version;  // version.json "cuda" or version.txt
  bool has_nvcc = false;
};

struct CudaLibFacts {
  std::vector<CudaToolkit> toolkits;
  std::vector<LibraryLocation> libraries;  // libcudart, libcublas, libcudnn, libnccl
};

struct TorchInstall {
  std::string site_packages;
  std::optional<std::string> version;       // torch/version.py __version__
  std::optional<std::string> cuda;          // torch/version.py cuda (nullopt = CPU build)
  bool version_py_found = false;
  bool has_libtorch_cuda = false;           // torch/lib/libtorch_cuda.so present
  std::optional<std::string> dist_version;  // torch-*.dist-info Version
  std::optional<bool> xnnpack;              // torch/include/xnnpack.h: built with XNNPACK (true), else unknown
  int dist_info_count = 0;                  // >1 = two torch dist-infos in one site-packages
  std::map<std::string, std::string> nvidia_pins;       // name -> pinned version (METADATA)
  std::map<std::string, std::string> nvidia_installed;  // name -> installed version
};

struct PythonEnv {
  std::string prefix;
  std::string kind;  // venv, conda, system, user, pyenv
  std::vector<std::string> site_packages;
  bool active = false;  // VIRTUAL_ENV / CONDA_PREFIX
  std::optional<std::string> python_version;  // from lib/pythonX.Y
  std::optional<std::string> python_full_version;  // 3.11.7: pyvenv.cfg, conda-meta, pyenv's folder
  std::vector<TorchInstall> torch;  // in import order (first wins)
  // Every distribution of an environment that has torch (name -> version, from *.dist-info
  // names): what `dlready export` pins so the lock rebuilds the environment, not torch alone.
  std::map<std::string, std::string> distributions;
};

struct PythonFacts {
  std::vector<PythonEnv> envs;
};

struct LibtorchInstall {
  std::string path;
  std::optional<std::string> build_version;  // build-version: 2.8.0+cu129
  std::optional<bool> cxx11_abi;             // from TorchConfig / torch flags
};

struct LibtorchFacts {
  std::vector<LibtorchInstall> installs;
};

// A program or library that does matrix math on the CPU, and the BLAS it really uses.
struct BlasConsumer {
  std::string name;     // "torch 2.11.0+cu130", "numpy", "LibTorch"
  std::string where;    // its site-packages or install directory
  std::string library;  // the file read: libtorch_cpu.so, numpy's _multiarray_umath*.so
  std::string blas;     // "libblas.so.3", "libopenblas.so.0", "bundled: numpy.libs/libscipy_openblas64_...so",
                        // "linked in" (no BLAS library on its loader path: MKL/OpenBLAS inside the file)
  bool system_blas = false;  // through libblas.so.3 / libcblas.so.3, i.e. whatever the alternatives pick
};

struct BlasFacts {
  LibraryLocation library;             // libblas.so.3
  std::optional<std::string> implementation;  // reference, openblas, blis, mkl, atlas
  std::vector<BlasConsumer> consumers;  // PyTorch, LibTorch and numpy installs found
};

// One library in a binary's dependency closure, as the dynamic loader would resolve it.
struct ResolvedLibrary {
  std::string name;       // as written in DT_NEEDED (or the dlopen name)
  std::string needed_by;  // path of the object that needs it
  std::optional<std::string> path;  // the file ld.so opens (nullopt: not found)
  std::string via;        // RPATH, LD_LIBRARY_PATH, RUNPATH, ld.so.cache, default directory, already loaded
  std::optional<std::string> version;     // from the real file name (libcudnn_graph.so.9.19.0 -> 9.19.0)
  std::vector<std::string> searched;      // directories tried in order ("dir (RUNPATH)")
  std::vector<std::string> later_copies;  // other files of that name later in the order: "path (via) [version]"
};

// GPU code found in a library's CUDA fat binaries (SASS cubins and PTX), by architecture number.
struct GpuCode {
  std::string library;
  std::vector<int> sass, ptx;  // 75 = sm_75 / compute_75
  bool compressed = false;
  std::string error;  // a malformed header stopped the scan (what was read before is kept)
  std::optional<std::string> torch_version;  // the library sits in a PyTorch's torch/lib: its torch/version.py
};

// A symbol version a library needs and the loaded provider does not define: ld.so stops with
// "<library>: version `<version>' not found (required by <required_by>)".
struct MissingVersion {
  std::string library, version, required_by;
};

struct Resolution {
  std::string binary;
  std::string error;  // the binary itself could not be read
  bool requested = false;  // named by --binary (its error is a usage error); else found in an environment
  std::vector<ResolvedLibrary> libraries;  // load order, each name once
  std::vector<MissingVersion> missing_versions;
  // Links LibTorch's CPU library while a libtorch_cuda.so sits next to it but is not in the
  // closure: the linker's --as-needed dropped it (the path of that libtorch_cuda.so).
  std::optional<std::string> unlinked_torch_cuda;
};

// dlready's own LibTorch module (what `dlready train/verify/bench` load), and the LibTorch it
// links: the doctor must not say "no PyTorch" while `dlready train` runs on this one.
struct OwnModuleFacts {
  std::optional<std::string> path;           // libdlready_train.so beside the binary (or installed)
  std::optional<std::string> libtorch_dir;   // where its libtorch_cpu.so resolves (LD_LIBRARY_PATH, RUNPATH)
  std::optional<std::string> torch_version;  // that LibTorch's version (torch/version.py, build-version)
  std::optional<std::string> nccl_version;   // the nvidia-nccl wheel beside it (its dist-info): the NCCL it loads
  std::string error;                         // why the module or its LibTorch could not be read
};

// What a package index serves of torch (probe/index_pages.hpp reads its pages).
struct IndexRelease {
  std::string version;  // "2.16.0" (final releases only: no rc, dev, a, b)
  // variant ("" = the index's unlabelled build, "cpu", "cu132") -> the Pythons it has wheels for
  // on the platform ("3.11"; "*" for a py3-none-any wheel).
  std::map<std::string, std::set<std::string>> pythons;
};

struct IndexReleases {
  std::vector<std::string> sources;   // the pages read ("https://pypi.org/simple/torch/ (cached 2 h ago)")
  std::vector<IndexRelease> releases;  // newest first
  // Where the labelled variants are (<this><variant>/ is one variant's index): the base of the page
  // that listed +cuXYZ / +cpu wheels ("https://download.pytorch.org/whl/"); "" when none did.
  std::string variant_index;
};

struct Facts {
  std::string root = "/";
  OsFacts os;
  PciFacts pci;
  KernelDriverFacts kernel;
  DeviceNodeFacts nodes;
  LibraryLocation libcuda, libnvml;
  DriverApiFacts driver;
  NvmlFacts nvml;
  EnvFacts env;
  CudaLibFacts cuda_libs;
  PythonFacts python;
  LibtorchFacts libtorch;
  BlasFacts blas;
  OwnModuleFacts own_module;
  std::vector<Resolution> binaries;  // --binary PATH, and each PyTorch's libtorch_cuda.so
  std::vector<GpuCode> gpu_code;     // fat binaries of the same (scanned when a GPU's CC is known)
  std::vector<CdiSpec> cdi_specs;    // /etc/cdi, /var/run/cdi
  std::optional<IndexReleases> torch_index;  // what `dlready setup` last read of the indexes (nullopt: never)
};

}  // namespace dlready
