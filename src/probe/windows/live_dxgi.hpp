// DXGI's answer on this machine (the Windows build only).
#pragma once
#include "facts/windows_answers.hpp"

namespace dlready {

DxgiAnswer read_dxgi();

}  // namespace dlready
