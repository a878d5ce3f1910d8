// The Windows source of facts: each probe reads one source (the registry, Win32 calls, the files
// in System32) and fills the same fact groups the Linux probes fill (facts/facts_<group>.hpp), so
// the rules and renderers are shared. Errors are values: what cannot be read stays unknown. Every
// question goes through a WindowsApi (probe/windows/windows_api.hpp): the machine itself on the
// Windows build, a capture's recorded answers on any build.
#pragma once
#include <map>
#include <string>

#include "probe/driver_children.hpp"
#include "probe/windows/windows_api.hpp"
#include "probe/gather.hpp"
#include "facts/facts.hpp"
#include "core/redact.hpp"

namespace dlready {

// The registry's own names, for the probes and their tests.
inline constexpr const char* kWindowsVersionKey = "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion";
inline constexpr const char* kDisplayClassKey =
    "SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}";

// The edition and release (ProductName, DisplayVersion, CurrentBuild: build 22000 and later is
// Windows 11 whatever ProductName says), the processors, memory, the architecture.
OsFacts probe_windows_os(const WindowsApi& api);
// The display adapters Windows installed a driver for (the display class's instances): vendor and
// device id from MatchingDeviceId, the name, the driver's version, the adapter's memory.
PciFacts probe_display_adapters(const WindowsApi& api);
// NVIDIA's driver version as nvidia-smi prints it ("560.94") from a Windows driver version
// ("32.0.15.6094": the last five digits); nullopt for anything else.
std::optional<std::string> nvidia_version_from_windows(const std::string& windows_version);
// nvcuda.dll and nvml.dll where Windows puts them (System32; nvml.dll also under NVSMI).
LibraryLocation probe_windows_library(const WindowsApi& api, const std::string& name, const std::map<std::string, std::string>& env);
// Python environments (the active one, conda's, the py launcher's, venvs in the profile) and the
// PyTorch in each, read as files.
PythonFacts probe_windows_python(const WindowsApi& api, const std::map<std::string, std::string>& env);
// For each PyTorch found: the DLLs `import torch` loads, followed through Windows' search for
// them, and those no folder has (the file behind WinError 126); python.exe's machine and torch's.
std::vector<TorchDllCheck> probe_torch_dlls(const WindowsApi& api, const PythonFacts& python, const std::map<std::string, std::string>& env);
// DXGI's adapters and its high-performance and minimum-power choices, and python.exe's per-app
// GPU preference (Settings → Graphics).
void probe_windows_graphics(const WindowsApi& api, WindowsFacts& w);
// LongPathsEnabled, and every python.exe on PATH in order.
WindowsFacts probe_windows_settings(const WindowsApi& api, const std::map<std::string, std::string>& env);
// What --redact hides on Windows: the user (USERNAME), the profile folder (USERPROFILE), the
// computer's and the domain's names, and the values of secret-looking variables.
RedactionInputs windows_redaction_inputs(const std::map<std::string, std::string>& env);
// CUDA toolkits: CUDA_PATH, CUDA_PATH_Vxx_y, the nvcc.exe folders on PATH; each with its
// version.json version and whether it has nvcc.
std::vector<CudaToolkit> probe_windows_toolkits(const WindowsApi& api, const std::map<std::string, std::string>& env);

// The driver's answer from a child process (dlready.exe --driver-child cuda|nvml DLL), killed after
// `timeout_ms`; and the child's side (the Windows build only: driver_probe.cpp).
ChildResult windows_driver_child(const std::string& kind, const std::string& dll, int timeout_ms);
int run_windows_driver_child(const std::string& kind, const std::string& dll);

// Every probe above in order, asking `api` (gather_windows.cpp).
[[nodiscard]] GatherResult gather_windows(const WindowsApi& api, const GatherOptions& options);
// A Windows capture under options.root, replayed (every build: probe/gather.hpp's sources).
[[nodiscard]] GatherResult gather_windows_capture(const GatherOptions& options);
// The platform of the machine under `root` as its capture names it (Windows without one).
std::string windows_capture_platform(const std::string& root);
// The Windows source of facts (probe/gather.hpp): the machine it runs on (the Windows build), and
// Windows captures under a root (every build).
FactSource windows_fact_source();
FactSource windows_capture_source();

}  // namespace dlready
