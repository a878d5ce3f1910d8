// Facts only Windows has (src/windows/ fills them; null on Linux).
// Plain data (std::nullopt = unknown); the tables say how each field is written (core/fact_table.hpp).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/fact_table.hpp"

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
  std::optional<std::string> torch_machine;    // c10.dll's
  std::vector<std::string> search_path;        // the folders searched, in Windows' order
  int dlls_read = 0;                           // DLLs whose import tables were read
  std::vector<MissingDll> missing;
  std::vector<std::string> unreadable;         // "<dll>: <why>" for DLLs that are not valid images
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
};

const FactTable<WindowsFacts>& windows_fields();
const FactTable<TorchDllCheck>& torch_dll_check_fields();
const FactTable<MissingDll>& missing_dll_fields();

}  // namespace dlready
