// This machine's host name as the OS reports it (none when it does not): host_name_posix.cpp on
// POSIX systems (gethostname), host_name_windows.cpp on Windows (the DNS host name).
#pragma once
#include <optional>
#include <string>

namespace dlready {

[[nodiscard]] std::optional<std::string> host_name();

}  // namespace dlready
