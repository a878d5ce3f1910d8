// The setup target of the machine the Windows build runs on: PyTorch's Windows wheels are win_amd64
// (the POSIX builds' twin is this_target_posix.cpp).
#include <string>

#include "setup/setup_plan.hpp"

namespace dlready {

std::string this_build_target() { return "win-amd64"; }

}  // namespace dlready
