#include "diagnose/catalogue.hpp"

#include <cstdio>
#include <cstdlib>

namespace dlready {

const std::vector<CheckSection>& check_sections() {
  static const std::vector<CheckSection> s = {
      {"system", "System"},
      {"gpu", "NVIDIA GPUs (PCI)"},
      {"kernel-driver", "Kernel driver"},
      {"device-nodes", "Device nodes"},
      {"driver-library", "User-space driver (libcuda, NVML)"},
      {"driver-api", "CUDA driver API"},
      {"environment", "Environment variables"},
      {"cuda-libraries", "CUDA toolkit and libraries"},
      {"pytorch", "PyTorch (Python environments)"},
      {"libtorch", "LibTorch"},
      {"cpu-math", "CPU math"},
  };
  return s;
}

const std::vector<CatalogueEntry>& catalogue() {
  using S = Severity;
  static const std::vector<CatalogueEntry> c = {
      {"secure-boot-blocks-driver", S::error, "kernel-driver", "Secure Boot is on and the NVIDIA module is not loaded",
       "With Secure Boot enforced the kernel loads only signed modules; a DKMS-built nvidia.ko signed with a key "
       "the firmware does not know (or not signed) is refused, so the GPU has no driver."},
      {"cdi-spec-driver-mismatch", S::error, "driver-library",
       "A CDI specification names another driver version than the loaded one",
       "nvidia-ctk generated the Container Device Interface spec for an earlier driver: its host paths "
       "(libcuda.so.<version>, ...) no longer exist after the upgrade, so containers started through CDI "
       "(podman, containerd, Docker with CDI, Kubernetes) get no GPU or fail to start."},
      {"socket-ifname-missing", S::warning, "environment",
       "NCCL_SOCKET_IFNAME or GLOO_SOCKET_IFNAME names no interface here",
       "The variable selects the network interface collectives use; when no interface matches, NCCL fails "
       "with 'no socket interface found' and Gloo with 'no device found' when the process group starts, "
       "often only on one node of a multi-node job."},
      {"nccl-variables-set", S::info, "environment", "NCCL debugging or transport variables are set",
       "NCCL_P2P_DISABLE, NCCL_IB_DISABLE, NCCL_SHM_DISABLE or NCCL_DEBUG change how NCCL moves data or how "
       "much it prints; left over from a debugging session they make multi-GPU training slower."},
      {"python-not-the-active-env", S::warning, "pytorch", "`python` runs another interpreter than the active environment's",
       "PATH puts another folder before the active environment's (conda's base activated after a venv, a pyenv "
       "shim, /usr/local/bin): `python` and `pip` then reach another environment than the one the prompt names, "
       "so a torch installed there is not the one imported ('No module named torch', or a CPU build)."},
      {"torch-needs-numpy1", S::error, "pytorch", "NumPy 2 beside a torch built for NumPy 1",
       "torch releases before 2.3 were compiled against NumPy 1's C interface. With NumPy 2 in the same environment "
       "`import torch` warns 'A module that was compiled using NumPy 1.x cannot be run in NumPy 2.x' and every "
       "conversion between tensors and arrays fails ('Numpy is not available', '_ARRAY_API not found'). Either "
       "NumPy goes back below 2, or torch moves to 2.3 or later."},
      {"no-nvidia-gpu", S::error, "gpu", "No NVIDIA GPU on this machine",
       "No PCI function with vendor 0x10de and a display class is visible in /sys/bus/pci, no WSL2 GPU "
       "(/dev/dxg) and no device answers the driver (on Windows: no display adapter of vendor 10de among "
       "those Windows installed a driver for). PyTorch can only train on the CPU here."},
      {"macos-too-old-for-mps", S::error, "pytorch", "This macOS is older than the installed PyTorch's MPS needs",
       "PyTorch's MPS backend checks the macOS release before it uses the GPU: torch 1.12 to 2.4 need macOS "
       "12.3, 2.5 to 2.8 need 13.0, 2.9 and later need 14.0. Up to 2.11 the wheels install on macOS 11, so "
       "pip installs a torch whose torch.backends.mps.is_available() is False here (and its warning may name "
       "an older macOS than it needs)."},
      {"mac-torch-needs-newer-macos", S::error, "pytorch", "PyTorch's libraries are built for a newer macOS",
       "libtorch_cpu.dylib's LC_BUILD_VERSION names a minimum macOS newer than this one (the wheels of 2.12 "
       "and later need macOS 14): `import torch` fails in dyld before Python sees it."},
      {"mac-python-under-rosetta", S::error, "pytorch", "An Intel (x86_64) Python runs on this Apple Silicon Mac",
       "The Python has no arm64 code (Intel Homebrew under /usr/local, an osx-64 conda, an old python.org "
       "installer) or the shell runs under Rosetta: pip then sees an Intel Mac, offers at most torch 2.2.2, "
       "and MPS is not available."},
      {"mac-intel-no-new-torch", S::warning, "system", "An Intel Mac: PyTorch stopped at 2.2.2 here",
       "PyPI has no macOS x86_64 wheels after torch 2.2.2 (Python 3.8 to 3.12); MPS works on an Intel Mac "
       "only with an AMD GPU on macOS 12.3 or newer."},
      {"mac-virtual-machine-no-mps", S::warning, "system", "A virtual Mac: MPS has no Metal device here",
       "macOS in a virtual machine (CI runners, Tart, Parallels, Apple's Virtualization framework) exposes no "
       "Metal device that MPS accepts (it requires the Mac2 GPU family): PyTorch runs on the CPU."},
      {"torch-built-without-mps", S::error, "pytorch", "This PyTorch was built without MPS",
       "libtorch_cpu.dylib does not link MetalPerformanceShadersGraph: torch.backends.mps.is_built() is "
       "False, so PyTorch cannot use the Mac's GPU whatever the macOS (a source or third-party build)."},
      {"mac-no-metal-device-for-mps", S::error, "system", "No Metal device that MPS can use",
       "The live Metal probe asked what torch's MPSDevice asks: MTLCopyAllDevices, without low-power devices "
       "(Intel integrated GPUs), in the Mac2 GPU family. None is left: a sandbox, a remote or virtual session "
       "or an Intel Mac without a discrete GPU, so torch.backends.mps.is_available() is False."},
      {"mac-python-no-torch-wheels", S::warning, "pytorch", "PyPI has no PyTorch for this Python on this Mac",
       "No torch release has macOS wheels for this Python version, processor and macOS: Python 3.13 before "
       "torch 2.6, 3.14 before 2.9, 3.15 before 2.15; an Intel Mac's last wheels (2.2.2) stop at Python 3.12. "
       "pip answers 'No matching distribution found for torch'."},
      {"mac-pip-externally-managed", S::warning, "pytorch", "pip may not install into this Python (PEP 668)",
       "Homebrew's Pythons carry PEP 668's EXTERNALLY-MANAGED file: pip install torch outside a virtual "
       "environment stops with 'externally-managed-environment'. A venv is the way (not --break-system-packages)."},
      {"mac-cuda-index-configured", S::warning, "pytorch", "pip is pointed at a CUDA index on a Mac",
       "PIP_INDEX_URL, uv's variables or a pip.conf name a download.pytorch.org/whl/cuXXX index (copied from "
       "a Linux tutorial): those indexes have no macOS wheels, so pip finds no torch. CUDA does not exist on "
       "macOS; PyPI's wheels carry MPS."},
      {"mac-two-openmp-runtimes", S::warning, "pytorch", "Two OpenMP runtimes in one environment",
       "torch's libomp, scikit-learn's .dylibs copy, conda's llvm-openmp or MKL's libiomp5: when two are loaded "
       "into one process it aborts with 'OMP: Error #15: Initializing libomp.dylib, but found libomp.dylib "
       "already initialized' or crashes (pytorch #132372, #121101, #78490)."},
      {"mps-memory-limit-off", S::warning, "environment", "PYTORCH_MPS_HIGH_WATERMARK_RATIO=0 lifts MPS's memory limit",
       "With the ratio 0.0 the MPS allocator never refuses memory: a large batch takes all of the Mac's unified "
       "memory and the system swaps or stalls (torch's docs: 'may cause system failure')."},
      {"mps-watermark-invalid", S::error, "environment", "An MPS watermark ratio is not valid",
       "PYTORCH_MPS_HIGH_WATERMARK_RATIO and PYTORCH_MPS_LOW_WATERMARK_RATIO take a number from 0 to 2: torch "
       "raises at the first MPS allocation otherwise."},
      {"mps-cpu-fallback-on", S::info, "environment", "MPS falls back to the CPU for missing operations",
       "PYTORCH_ENABLE_MPS_FALLBACK=1: an operation without an MPS kernel runs on the CPU without an error, "
       "which can make training much slower than the GPU suggests."},
      {"jetson-needs-jetpack-wheel", S::error, "pytorch", "This Jetson needs the PyTorch built for its JetPack",
       "Up to JetPack 6 (L4T R36) a Jetson's CUDA is the Tegra build: PyPI's aarch64 torch (a CPU build up to "
       "2.10, a server build from 2.11) and the SBSA wheels of download.pytorch.org have no code for Orin (sm_87) "
       "or load server CUDA libraries, so torch.cuda.is_available() is False. The wheels built for the JetPack "
       "come from NVIDIA or the Jetson AI Lab index (jp6/cu126)."},
      {"gb10-capability-warning-harmless", S::info, "pytorch", "torch's capability warning on GB10 is harmless",
       "torch 2.9 and 2.10 warn that GB10's compute capability 12.1 is outside the \"(8.0) - (12.0)\" they support, "
       "yet their sm_120 code runs on 12.1 (pytorch#172629; torch 2.11 knows it, PR #166185)."},
      {"library-misaligned-for-page-size", S::error, "pytorch", "A library cannot be loaded with this kernel's page size",
       "The kernel uses pages larger than 4 KiB (64K on many Grace systems) and a shared object in a Python "
       "environment has a PT_LOAD alignment below that: importing it fails with \"ELF load command alignment not "
       "page-aligned\" (pytorch#53597, numpy#16677)."},
      {"jetson-wheel-libraries-missing", S::error, "pytorch", "This Jetson's torch was built for another JetPack",
       "torch's CUDA library needs libraries this L4T release does not have: a JetPack 6.0 wheel wants cuDNN 8 "
       "(libcudnn.so.8) where 6.1 and 6.2 have cuDNN 9, a JetPack 5 wheel wants CUDA 11, and some builds want "
       "cuSPARSELt, which JetPack does not install. Importing torch fails with ImportError naming the library."},
      {"jetson-torch-needs-numpy1", S::warning, "pytorch", "This JetPack torch was compiled against NumPy 1",
       "NVIDIA's JetPack builds of torch (versions like 2.4.0a0+...nv24.05) were compiled against NumPy 1; with NumPy "
       "2 in the same environment, torch.from_numpy and everything using NumPy fails with \"A module that was "
       "compiled using NumPy 1.x cannot be run in NumPy 2.x\" (jetson-containers#1537)."},
      {"jetson-container-without-nvidia-runtime", S::error, "device-nodes",
       "This Jetson container was started without NVIDIA's runtime",
       "Up to JetPack 6 a container on a Jetson gets L4T's CUDA driver (libcuda.so.1.1) and the GPU's device nodes "
       "(/dev/nvmap, /dev/nvhost-*) only from the NVIDIA Container Runtime, in its CSV mode; without it CUDA finds "
       "no device (nvidia-container-runtime#173)."},
      {"orin-jetpack7-code-unverified", S::warning, "pytorch", "Whether this torch's code runs on Orin is not established",
       "From JetPack 7.2 Orin (compute capability 8.7) runs the server (SBSA) wheels, which carry sm_80 code and no "
       "sm_87. torch's own compatibility table says 8.0 code does not run on 8.7; one public log shows it running "
       "under JetPack 7.2. dlready cannot be sure, so it says so and gives the check."},
      {"jemalloc-on-large-pages", S::info, "pytorch", "A bundled jemalloc may not run with this kernel's page size",
       "jemalloc is built for one page size; a copy built for 4K pages aborts at start on a 64K-page kernel with "
       "\"<jemalloc>: Unsupported system page size\" (falco#3954, dorado#1377). The page size it was built for is not "
       "in its files, so the copies are named for the case that an import aborts."},
      {"hbm-node-page-cache", S::warning, "gpu", "Page cache fills the GPU's memory node",
       "On GH200 the GPU's HBM is a NUMA node without processors; R550 drivers let the kernel's page cache fill it, "
       "so CUDA runs out of memory that nvidia-smi shows as free (fixed in R570; CDMM mode hides the node)."},
      {"triton-ptxas-too-old", S::warning, "pytorch", "torch.compile's ptxas does not know this GPU",
       "Triton compiles torch.compile's kernels with its own ptxas unless TRITON_PTXAS_PATH names another (torch "
       "2.11 sets it to its bundled CUDA 13 ptxas). A ptxas older than the GPU fails with \"ptxas fatal: Value "
       "'sm_121a' is not defined for option 'gpu-name'\" (triton#8539): GB10 needs CUDA 12.9, Thor CUDA 13.0."},
      {"grace-needs-open-kernel-modules", S::error, "kernel-driver", "Grace needs NVIDIA's open kernel modules",
       "On Grace Hopper and Grace Blackwell systems the proprietary NVIDIA kernel modules are unsupported: "
       "/proc/driver/nvidia/version does not say \"Open Kernel Module\", and the GPU does not initialise."},
      {"windows-long-paths-disabled", S::warning, "system", "Windows limits paths to 260 characters",
       "LongPathsEnabled is off (Windows' default): pip fails to install torch into a Python whose "
       "site-packages sits deep enough, with 'OSError: [Errno 2] No such file or directory' on a file under "
       "torch\\include, because the wheel holds paths longer than Windows allows."},
      {"windows-python-store-stub", S::warning, "pytorch", "`python` runs the Microsoft Store's stub",
       "The first python.exe on PATH is the App Execution Alias in %LOCALAPPDATA%\\Microsoft\\WindowsApps: "
       "it installs nothing and runs nothing ('Python was not found; run without arguments to install from "
       "the Microsoft Store'), so `python -m pip install torch` and every script fail although a real Python "
       "may be installed."},
      {"windows-vc-runtime-missing", S::error, "pytorch", "The Visual C++ runtime PyTorch needs is missing",
       "A DLL of the Microsoft Visual C++ 2015-2022 runtime (vcruntime140.dll, vcruntime140_1.dll, "
       "msvcp140.dll) that torch's DLLs import is in none of the folders Windows searches when torch loads "
       "them: `import torch` fails with 'OSError: [WinError 126] The specified module could not be found. "
       "Error loading \"...\\torch\\lib\\c10.dll\" or one of its dependencies.'"},
      {"windows-torch-dll-missing", S::error, "pytorch", "A DLL torch loads is missing",
       "A DLL that one of torch's DLLs imports (OpenMP's libomp140.x86_64.dll, a CUDA DLL such as "
       "cudnn64_9.dll, or another) is in none of the folders Windows searches when torch loads it: `import "
       "torch` fails with WinError 126 naming the torch DLL, not the missing file."},
      {"windows-python-architecture-mismatch", S::error, "pytorch", "Python and PyTorch are built for different processors",
       "python.exe is a 32-bit (x86) or ARM64 program and torch's DLLs are x64 (PyTorch publishes win_amd64 "
       "wheels only): pip finds no torch for it ('No matching distribution found for torch'), and a torch "
       "copied in fails to load ('[WinError 193] %1 is not a valid Win32 application')."},
      {"windows-gpu-watchdog", S::info, "gpu", "Windows ends GPU work that runs longer than a few seconds",
       "The NVIDIA GPU runs under WDDM (it is a display device, as every GeForce is) and Windows' watchdog (TDR) "
       "resets a GPU that spends longer than TdrDelay seconds (2 by default) on one piece of work: a long kernel "
       "(a large batch, a big model on a small GPU) ends with 'Display driver nvlddmkm stopped responding and has "
       "successfully recovered' and CUDA's 'the launch timed out and was terminated'."},
      {"windows-python-on-power-saving-gpu", S::warning, "gpu", "Windows gives Python the power-saving GPU",
       "Settings → System → Display → Graphics sets python.exe to 'Power saving' on a machine with an NVIDIA "
       "GPU and another one (a laptop's integrated GPU): Windows runs Python's DirectX work (DirectML, "
       "torch-directml, plot windows) on the integrated GPU. CUDA reaches the NVIDIA GPU through its own "
       "driver either way; the second tutorial's advice for such laptops is to choose the high-performance "
       "NVIDIA processor for Python."},
      {"windows-nvcuda-missing", S::error, "driver-library", "Windows has no NVIDIA driver for the GPU",
       "An NVIDIA display adapter is there but nvcuda.dll, the CUDA driver NVIDIA's Windows driver puts in "
       "System32, is not: Windows runs the GPU on its Microsoft Basic Display driver, or the driver "
       "install failed. torch.cuda.is_available() is False."},
      {"nouveau-loaded", S::error, "kernel-driver", "The open-source nouveau driver owns the GPU",
       "nouveau (or nova_core) is bound to the GPU or loaded; the NVIDIA driver cannot attach while it is. "
       "CUDA never works on nouveau."},
      {"driver-not-loaded", S::error, "kernel-driver", "The NVIDIA kernel driver is not loaded",
       "A GPU is present but the nvidia kernel module is not loaded (no /proc/driver/nvidia/version): "
       "not installed, not built for the running kernel (DKMS), or refused by Secure Boot."},
      {"driver-reboot-required", S::warning, "kernel-driver",
       "The installed NVIDIA kernel module differs from the loaded one (reboot pending)",
       "The nvidia.ko on disk for the running kernel has another version than the module in memory: the "
       "driver was upgraded and the machine was not rebooted."},
      {"nvidia-uvm-missing", S::error, "device-nodes", "/dev/nvidia-uvm is missing (nvidia_uvm not loaded)",
       "CUDA needs the Unified Memory module and its device node; without it cuInit fails even though "
       "nvidia-smi works."},
      {"device-node-permission", S::error, "device-nodes", "The user cannot open the NVIDIA device nodes",
       "/dev/nvidia* exist but are not readable and writable by the user the check is for; CUDA then "
       "reports no device or an operating-system error."},
      {"gpu-open-to-all-users", S::info, "device-nodes", "Every local user can use the GPUs",
       "The GPU device nodes are readable and writable by others (the driver's default mode 0666): any "
       "account on the machine, service accounts included, can run work on the GPUs and read what they "
       "allocate. Restricting them to a group is what the tutorial's safety section asks for."},
      {"libcuda-missing", S::error, "driver-library", "The loader cannot find libcuda.so.1",
       "The kernel driver is present but the user-space driver library (libcuda.so.1) is not in "
       "LD_LIBRARY_PATH, /etc/ld.so.cache or the default directories: every CUDA program fails to start "
       "its runtime."},
      {"libcuda-stub", S::error, "driver-library", "The loader picks the CUDA toolkit's stub libcuda",
       "The toolkit's stubs/libcuda.so is for linking only; at run time it returns "
       "CUDA_ERROR_STUB_LIBRARY (34). It is reached through LD_LIBRARY_PATH or an ld.so.conf entry."},
      {"libcuda-load-failed", S::error, "driver-library", "libcuda.so.1 is found but cannot be loaded",
       "dlopen of the driver library fails (wrong architecture, missing dependency, corrupt file)."},
      {"driver-symbol-missing", S::error, "driver-library",
       "The driver library lacks entry points every CUDA program needs",
       "libcuda.so.1 or libnvidia-ml.so.1 loads but a required function (cuInit, cuDriverGetVersion, "
       "cuDeviceGetCount, nvmlInit_v2, ...) is missing: it is not a real or complete NVIDIA driver library."},
      {"driver-library-mismatch", S::error, "driver-library",
       "User-space driver and kernel module have different versions",
       "libcuda/libnvidia-ml come from one driver release and the loaded kernel module from another "
       "(NVML: 'Driver/library version mismatch'). Typical after an unattended driver upgrade."},
      {"cuda-compat-on-unsupported-gpu", S::error, "driver-library",
       "CUDA forward-compatibility libraries are used on a GPU that does not support them",
       "The loader picks the cuda-compat libcuda (…/compat/) and cuInit returns 804: forward compatibility "
       "works only on data-centre GPUs with a supported driver branch."},
      {"fabric-manager-missing", S::error, "driver-api", "NVSwitch system without a running Fabric Manager",
       "cuInit returns 802 (system not ready) or NVSwitches are present without nvidia-fabricmanager: on "
       "HGX/DGX machines CUDA waits for the fabric to be configured."},
      {"driver-probe-hang", S::error, "driver-api", "The NVIDIA driver hangs when initialised",
       "The probe process calling cuInit or nvmlInit did not finish within the timeout and was killed."},
      {"driver-probe-crash", S::error, "driver-api", "The NVIDIA driver crashes when initialised",
       "The probe process calling into libcuda/libnvidia-ml died from a signal."},
      {"cuda-init-failed", S::error, "driver-api", "cuInit failed",
       "The driver API refused to initialise; the error code says why (for example 999 after "
       "suspend/resume, 3 with a half-installed driver, 100 when no device is usable)."},
      {"driver-too-old", S::error, "driver-library", "The NVIDIA driver is too old for the installed PyTorch",
       "The CUDA runtime a PyTorch build ships needs a minimum driver (CUDA 11.x: 450.80.02, 12.x: "
       "525.60.13, 13.x: 580.65.06 with minor-version compatibility); older drivers make "
       "torch.cuda.is_available() False ('The NVIDIA driver on your system is too old')."},
      {"cuda-visible-devices-hides-all", S::error, "environment", "CUDA_VISIBLE_DEVICES hides every GPU",
       "CUDA_VISIBLE_DEVICES is empty, -1, or starts with an entry that matches no GPU; CUDA then sees "
       "zero devices."},
      {"cuda-visible-devices-invalid", S::warning, "environment",
       "CUDA_VISIBLE_DEVICES has entries CUDA will ignore",
       "An index out of range, an unknown UUID or a duplicate stops CUDA's parsing: that entry and every "
       "entry after it are dropped."},
      {"alloc-conf-conflict", S::error, "environment", "The allocator setting combines options that assert in this torch",
       "expandable_segments:True with max_split_size_mb or garbage_collection_threshold is accepted by torch 2.1 to "
       "2.4, but their freeing paths then release blocks of an expandable segment and the job dies near the memory "
       "limit with '!block->expandable_segment_ INTERNAL ASSERT FAILED' (pytorch#119452; fixed in 2.5). Expandable "
       "segments make the split limit unnecessary: keep them and drop the other options."},
      {"alloc-conf-invalid", S::error, "environment", "PYTORCH_CUDA_ALLOC_CONF is not valid",
       "PyTorch parses PYTORCH_CUDA_ALLOC_CONF (PYTORCH_ALLOC_CONF from 2.9) when the CUDA caching "
       "allocator starts: an unknown key or a malformed value ('=' for ':', true for True) raises an "
       "error at the first CUDA tensor ('Unrecognized key ... in Accelerator allocator config'), so "
       "every CUDA job fails."},
      {"compute-mode-prohibited", S::error, "driver-api", "A GPU is in compute mode PROHIBITED",
       "No process can create a CUDA context on a GPU in PROHIBITED mode."},
      {"compute-mode-exclusive", S::info, "driver-api", "A GPU is in EXCLUSIVE_PROCESS compute mode",
       "Only one process at a time can use the GPU: a second training or a DataLoader worker touching "
       "CUDA fails with 'device busy or unavailable'."},
      {"gpu-clocks-slowed", S::warning, "driver-api", "A GPU's clocks are held down by the hardware",
       "NVML reports a hardware slowdown, a thermal slowdown or the power brake on a GPU: the driver "
       "halves the clocks or more, so training on it runs several times slower than it should, with no "
       "error anywhere. A GPU nothing runs on should show none of these."},
      {"mig-without-instances", S::error, "driver-api", "MIG is enabled but no GPU instance exists",
       "With MIG mode on, CUDA only sees MIG instances; with none created the GPU is invisible."},
      {"mig-pending-reset", S::warning, "driver-api", "A MIG mode change waits for a GPU reset",
       "The pending MIG mode differs from the current one until the GPU is reset or the machine reboots."},
      {"gpu-presence-unknown", S::error, "gpu", "Cannot tell whether this machine has an NVIDIA GPU",
       "/sys/bus/pci/devices exists but this user may not read it, and no driver answered: the doctor cannot "
       "see the PCI bus, so it does not claim there is no GPU."},
      {"driver-does-not-drive-gpu", S::error, "gpu", "The NVIDIA driver's branch does not drive this GPU",
       "The driver is older than the first branch for the GPU's architecture (Ada needs R520, Blackwell R570) or "
       "newer than its last (Kepler ends at R470; Maxwell, Pascal and Volta at R580; data/driver_arch.tsv): the "
       "driver does not take the GPU, nvidia-smi says 'No devices were found' and CUDA sees no device, whatever "
       "PyTorch is installed."},
      {"gpu-count-mismatch", S::warning, "gpu", "Fewer GPUs answer the driver than sit on the PCI bus",
       "Some NVIDIA GPUs in sysfs are not initialised by the driver: often 'Above 4G decoding' / "
       "Resizable BAR disabled in the BIOS, power, or a fallen-off-the-bus GPU (Xid 79)."},
      {"gpu-bar-unassigned", S::warning, "gpu", "A GPU's large memory BAR is not assigned",
       "BAR1 of an NVIDIA GPU has no address range in sysfs and NVML reports none either: the firmware or "
       "hypervisor could not map it (enable 'Above 4G decoding' and Resizable BAR in the BIOS). Where CUDA "
       "works on that GPU it is only info: training runs, peer-to-peer and GPUDirect mappings do not."},
      {"pcie-link-degraded", S::info, "gpu", "A GPU's PCIe link runs narrower than it can",
       "The current link width is below the maximum (a riser, a slot wired x8/x4, or a bad seat); "
       "host-device copies slow down accordingly."},
      {"hybrid-graphics", S::info, "gpu", "Hybrid graphics: another GPU drives the display",
       "A laptop or desktop with an integrated GPU besides the NVIDIA one. CUDA still uses the NVIDIA GPU; "
       "for graphics choose the high-performance NVIDIA GPU."},
      {"gpu-memory-busy", S::warning, "driver-api", "GPU memory is already in use by other processes",
       "More than half of a GPU's memory is used before training starts: expect 'CUDA out of memory'."},
      {"wsl1-no-gpu", S::error, "system", "WSL1: this distribution runs without a GPU",
       "WSL1 translates Linux system calls to Windows' kernel and has no GPU at all (no /dev/dxg); only WSL2, a "
       "real Linux kernel in a light VM, reaches the Windows NVIDIA driver. nvidia-smi fails with 'couldn't "
       "communicate with the NVIDIA driver' and torch.cuda.is_available() is False, whatever is installed inside. "
       "Converting the distribution to WSL2 keeps its files."},
      {"wsl-windows-driver-missing", S::error, "system", "WSL2 without the Windows NVIDIA driver's GPU bridge",
       "Inside WSL2 the GPU is reached through /dev/dxg and /usr/lib/wsl/lib/libcuda.so.1, which the "
       "Windows NVIDIA driver provides; one or both are missing."},
      {"wsl-linux-driver-installed", S::error, "system", "A Linux NVIDIA driver is installed inside WSL2",
       "WSL2 must use the Windows driver's libraries in /usr/lib/wsl/lib; a Linux driver package inside "
       "the distribution shadows them and breaks CUDA."},
      {"container-without-gpu", S::error, "system", "Container started without GPU access",
       "The host has NVIDIA GPUs but this container has no /dev/nvidia* device nodes or driver libraries: "
       "it was started without --gpus (or without the NVIDIA container toolkit)."},
      {"container-missing-compute-capability", S::error, "system",
       "NVIDIA_DRIVER_CAPABILITIES does not include compute",
       "The NVIDIA container runtime mounts libcuda only for the 'compute' capability."},
      {"shm-too-small", S::warning, "system", "/dev/shm is small",
       "PyTorch DataLoader workers and NCCL pass tensors through shared memory; Docker's default 64 MiB "
       "makes them fail with 'bus error' or 'unable to write to file </torch_…>'."},
      {"cpu-oversubscribed", S::warning, "system", "The CPUs are busy with other work",
       "More tasks want to run than there are processors (load average or running tasks above the processor "
       "count): a CPU training run gets a fraction of each core and its threads wait on each other; the "
       "tutorials' job went from under a second to over a minute per epoch this way."},
      {"torch-not-installed", S::warning, "pytorch", "No PyTorch found in any Python environment",
       "Neither the active environment nor the Python installations on PATH, conda or pyenv have torch "
       "('ModuleNotFoundError: No module named torch')."},
      {"active-env-without-torch", S::warning, "pytorch", "The active environment has no PyTorch",
       "The user's Python — the environment VIRTUAL_ENV or CONDA_PREFIX names, the interpreter that ran `python -m "
       "dlready`, or the version a pyenv shim first on PATH runs (PYENV_VERSION, .python-version, pyenv's global "
       "version) — has no torch, while another environment has it: the doctor's PyTorch is that other one, and "
       "`import torch` in this shell fails with ModuleNotFoundError."},
      {"torch-cpu-only", S::error, "pytorch", "PyTorch is a CPU-only build",
       "The torch that would be imported has no CUDA support (version +cpu, torch.version.cuda None): "
       "torch.cuda.is_available() is False whatever the driver."},
      {"torch-duplicate-installs", S::warning, "pytorch", "More than one PyTorch on one import path",
       "Two torch installs (user site and environment, pip over conda, two dist-infos) or CUDA wheels of two "
       "CUDA majors in one environment: which one imports depends on sys.path order."},
      {"torch-cuda-wheel-missing", S::error, "pytorch", "A CUDA wheel PyTorch pins is not installed",
       "torch's METADATA pins nvidia-* / cuda-toolkit wheels that are missing: import fails with "
       "'libcudnn.so.9: cannot open shared object file' or similar."},
      {"torch-cuda-wheel-version-mismatch", S::warning, "pytorch",
       "A CUDA wheel has another version than PyTorch pins",
       "An nvidia-* wheel differs from the exact version torch was built and tested with (often after "
       "'pip install -U' of another package)."},
      {"library-symbol-missing", S::error, "cuda-libraries",
       "A library the loader picks lacks a symbol another one needs: import torch fails",
       "Both copies carry the same name (libnvJitLink.so.12), so the loader takes the first it finds (through "
       "LD_LIBRARY_PATH, /opt/conda/lib, a stale nvidia-* wheel), but that older copy does not define a symbol the "
       "wheel's library was linked against. Python loads extension modules with RTLD_NOW, so `import torch` fails "
       "with \"undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12\"."},
      {"symbol-version-missing", S::error, "cuda-libraries",
       "A library the loader picks lacks a symbol version another one needs",
       "An object in the closure needs a symbol version (.gnu.version_r) that the copy of the library the "
       "loader resolves does not define (.gnu.version_d): an older libstdc++, libnvJitLink or cuSPARSE found "
       "first through LD_LIBRARY_PATH or a conda env. The import fails with \"version `...' not found\"."},
      {"ptx-jit-only", S::warning, "cuda-libraries", "A GPU runs PyTorch only through PTX JIT compilation",
       "The build has no SASS for this GPU's architecture, only PTX of an older one: the driver compiles "
       "every kernel at first use (minutes on the first run, again whenever the JIT cache is disabled, too "
       "small or on another driver), and code tuned for an older architecture runs slower."},
      {"arch-not-supported", S::error, "cuda-libraries", "PyTorch has no GPU code this GPU can run",
       "The build's fat binaries (or the release's published arch list) have no cubin for the GPU's compute "
       "capability (same major, minor <= the GPU's) and no PTX old enough to JIT: 'no kernel image is available "
       "for execution on the device' / 'sm_XY is not compatible with the current PyTorch installation'."},
      {"cuda-lib-unresolvable", S::error, "cuda-libraries", "The loader cannot find a CUDA library a program needs",
       "A CUDA, cuDNN, NCCL or PyTorch library in the dependency closure of libtorch_cuda.so (or of a --binary) "
       "is in none of the directories ld.so searches: the program stops with 'cannot open shared object file'."},
      {"lib-unresolvable", S::error, "cuda-libraries", "The loader cannot find a library a program needs",
       "A non-CUDA library in the dependency closure of a --binary is in none of the directories ld.so searches."},
      {"cuda-lib-shadowed", S::warning, "cuda-libraries", "LD_LIBRARY_PATH shadows the CUDA library a program ships with",
       "The loader takes a CUDA library from LD_LIBRARY_PATH although the program's own RUNPATH (or the cache) "
       "holds another copy; mixed versions cause symbol errors or wrong-version crashes (cuDNN, nvJitLink, NCCL)."},
      {"cuda-lib-second-copy", S::info, "cuda-libraries",
       "Another copy of a CUDA library PyTorch's wheel ships is on the loader's path",
       "A library with the soname of one in the torch wheel's nvidia/*/lib (cuDNN, cuBLAS, NVRTC, nvJitLink...) "
       "but another file sits in ld.so.cache, a default directory or LD_LIBRARY_PATH (a CUDA toolkit, a system "
       "cuDNN). PyTorch and dlready load the wheel's copies first, by path; a lookup by name that starts "
       "elsewhere (LD_LIBRARY_PATH, a program's own run path, a library's dlopen) can mix the two versions in "
       "one process: symbol errors, CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH or a crash in a kernel. A warning "
       "when LD_LIBRARY_PATH names the other copy."},
      {"cuda-toolkit-torch-mismatch", S::warning, "cuda-libraries",
       "The CUDA toolkit (nvcc) major differs from PyTorch's CUDA",
       "Building CUDA extensions (flash-attn, apex, your own) needs nvcc of the same CUDA major as "
       "torch.version.cuda."},
      {"dlready-module-missing", S::warning, "libtorch", "dlready's LibTorch module cannot run here",
       "dlready train, verify, bench, eval, quantize and export-model run in libdlready_train.so, beside the "
       "binary (or in <prefix>/lib/dlready when installed; a wheel-installed dlready builds it against the active "
       "torch into its cache), on the LibTorch it was built against; the module is missing, or that LibTorch cannot "
       "be found. The doctor, snapshot, diff, export and setup do not need it."},
      {"libtorch-abi-mismatch", S::warning, "libtorch", "LibTorch uses the pre-C++11 string ABI",
       "A LibTorch built with _GLIBCXX_USE_CXX11_ABI=0 does not link with code built by today's g++ default "
       "(undefined references to std::__cxx11::basic_string)."},
      {"torch-library-damaged", S::error, "cuda-libraries", "A PyTorch library is damaged",
       "A library of an installed PyTorch (libtorch_cuda.so) is there but its ELF headers cannot be read: "
       "the file is cut short or overwritten (an interrupted download or install, a full disk). import torch "
       "fails with a loader error such as 'invalid ELF header' or 'file too short' (on Windows: a DLL in "
       "torch\\lib that is no valid image, and '[WinError 193] %1 is not a valid Win32 application')."},
      {"libtorch-cuda-not-linked", S::error, "libtorch", "A LibTorch program lost libtorch_cuda to --as-needed",
       "The program links libtorch_cpu but not libtorch_cuda, although its LibTorch has one: the linker's "
       "--as-needed (Ubuntu's default) dropped it because no symbol is referenced, so CUDA kernels never "
       "register and torch::cuda::is_available() is false."},
      {"blas-reference", S::warning, "cpu-math", "libblas.so.3 is the slow reference BLAS",
       "A PyTorch, LibTorch or numpy found here links the system BLAS (Debian's python3-numpy, source builds "
       "of LibTorch) and gets netlib's reference implementation, about 10x slower than OpenBLAS. Raised only "
       "for such a consumer: the PyPI wheels of PyTorch (MKL) and numpy (OpenBLAS) carry their own BLAS."},
  };
  return c;
}

const CatalogueEntry& catalogue_entry(const std::string& id) {
  for (const auto& e : catalogue())
    if (id == e.id) return e;
  std::fprintf(stderr, "internal error: unknown finding id '%s'\n", id.c_str());
  std::abort();
}

Finding make_finding(const std::string& id) {
  const auto& e = catalogue_entry(id);
  Finding f;
  f.id = e.id;
  f.severity = e.severity;
  f.check = e.check;
  f.title = e.title;
  return f;
}

}  // namespace dlready
