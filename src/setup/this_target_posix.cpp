// The setup target of the machine a POSIX build runs on, from uname: Linux's processor, a Mac's
// (the Windows build's twin is this_target_windows.cpp).
#include <sys/utsname.h>

#include <string>

#include "setup/setup_plan.hpp"

namespace dlready {

std::string this_build_target() {
  utsname u{};
  ::uname(&u);
  const std::string system = u.sysname, machine = u.machine;
  if (system == "Darwin") return machine == "x86_64" ? "macos-x86_64" : "macos-arm64";
  return machine == "aarch64" ? "linux-aarch64" : "linux-x86_64";
}

}  // namespace dlready
