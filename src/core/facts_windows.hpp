// Facts only Windows has (src/windows/ fills them; null on Linux).
// Plain data (std::nullopt = unknown); the tables say how each field is written (core/fact_table.hpp).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/fact_table.hpp"

namespace dlready {

struct WindowsFacts {
  // HKLM\SYSTEM\CurrentControlSet\Control\FileSystem LongPathsEnabled (missing = false: Windows'
  // default): off, paths over 260 characters fail, and torch's wheel has such paths.
  std::optional<bool> long_paths_enabled;
  // Every python.exe on PATH, in PATH's order (the first is what `python` runs); the Microsoft
  // Store's stub lives in %LOCALAPPDATA%\Microsoft\WindowsApps.
  std::vector<std::string> python_on_path;
  std::optional<std::string> store_stub_dir;  // %LOCALAPPDATA%\Microsoft\WindowsApps
};

const FactTable<WindowsFacts>& windows_fields();

}  // namespace dlready
