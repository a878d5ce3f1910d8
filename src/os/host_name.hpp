// This machine's host name as the OS reports it ("" when it does not): host_name.cpp on POSIX
// systems (gethostname), host_name_win32.cpp on Windows (the DNS host name).
#pragma once
#include <string>

namespace dlready {

[[nodiscard]] std::string host_name();

}  // namespace dlready
