#include <windows.h>

#include "os/host_name.hpp"
#include "os/windows_text.hpp"

namespace dlready {

std::optional<std::string> host_name() {
  wchar_t name[256] = L"";
  DWORD size = 256;
  if (!::GetComputerNameExW(ComputerNameDnsHostname, name, &size)) return std::nullopt;
  return utf8_from_wide(name);
}

}  // namespace dlready
