#include <windows.h>

#include "core/host_name.hpp"
#include "core/win32_text.hpp"

namespace dlready {

std::string host_name() {
  wchar_t name[256] = L"";
  DWORD size = 256;
  if (!::GetComputerNameExW(ComputerNameDnsHostname, name, &size)) return "";
  return utf8_from_wide(name);
}

}  // namespace dlready
