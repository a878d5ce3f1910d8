// Facts only Windows has (src/windows/ fills them; null on Linux).
// Plain data (std::nullopt = unknown); the tables say how each field is written (facts/fact_table.hpp).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "facts/fact_table.hpp"

namespace dlready {

// A DLL one of torch's DLLs imports that Windows finds in none of the folders it searches: the
// file behind `OSError: [WinError 126] ... Error loading "...\\torch\\lib\\c10.dll" or one of its
// dependencies`.
struct MissingDll {
  std::string name;       // as the importing DLL names it: VCRUNTIME140_1.dll
  std::string needed_by;  // the DLL whose import table names it
  std::string loading;    // the torch\lib DLL whose load fails for it: the one WinError 126 names
};

// What `import torch` loads, read as files: every DLL in torch\lib (torch's __init__.py loads them
// all) and what they import, followed through Windows' search for torch's loads.
struct TorchDllCheck {
  std::string torch_lib;                       // ...\site-packages\torch\lib
  std::optional<std::string> python_exe;       // the python.exe the process runs (a venv's base)
  std::optional<std::string> python_machine;   // its PE machine: x64, x86, arm64
  std::optional<std::string> torch_machine;    // c10.dll's (else torch\lib's first DLL's)
  std::vector<std::string> search_path;        // the folders searched, in Windows' order
  int dlls_read = 0;                           // DLLs whose import tables were read
  std::vector<MissingDll> missing;
  std::vector<std::string> unreadable;         // "<dll>: <why>" for DLLs that are not valid images
};

// A graphics adapter as DXGI (DirectX's adapter list) reports it.
struct DxgiAdapter {
  std::string name;
  std::string vendor_id, device_id;  // lowercase hex: 10de, 2684
  std::optional<uint64_t> dedicated_memory;
  std::string luid;                  // the adapter's locally unique id: 0x00000000:0x0000d3a1
  bool software = false;             // the Basic Render Driver (WARP)
};

struct WindowsFacts {
  // HKLM\SYSTEM\CurrentControlSet\Control\FileSystem LongPathsEnabled (missing = false: Windows'
  // default): off, paths over 260 characters fail, and torch's wheel has such paths.
  std::optional<bool> long_paths_enabled;
  // Every python.exe on PATH, in PATH's order (the first is what `python` runs); the Microsoft
  // Store's stub lives in %LOCALAPPDATA%\Microsoft\WindowsApps.
  std::vector<std::string> python_on_path;
  std::optional<std::string> store_stub_dir;  // %LOCALAPPDATA%\Microsoft\WindowsApps
  std::vector<TorchDllCheck> torch_dlls;      // one per PyTorch found
  // Windows' GPU watchdog (TDR: HKLM\SYSTEM\CurrentControlSet\Control\GraphicsDrivers): TdrDelay,
  // the seconds a WDDM GPU may spend on one piece of work before Windows resets it, and TdrLevel
  // (0: the watchdog is off); null when not set, and Windows' defaults apply (2 s, on).
  std::optional<int> tdr_delay, tdr_level;
  // DXGI's adapters, and the one it ranks first for high performance and for minimum power (the
  // choice Windows makes for programs without a preference of their own); the error when DXGI
  // could not be asked.
  std::vector<DxgiAdapter> dxgi_adapters;
  std::optional<std::string> dxgi_high_performance, dxgi_minimum_power;  // LUIDs
  std::optional<std::string> dxgi_error;
  // Settings → Graphics' per-app choices for Python (the values of the key
  // HKCU\Software\Microsoft\DirectX\UserGpuPreferences): program -> power-saving,
  // high-performance or let-windows-decide.
  std::map<std::string, std::string> python_gpu_preferences;
};

const FactTable<WindowsFacts>& windows_fields();
const FactTable<TorchDllCheck>& torch_dll_check_fields();
const FactTable<MissingDll>& missing_dll_fields();
const FactTable<DxgiAdapter>& dxgi_adapter_fields();

}  // namespace dlready
