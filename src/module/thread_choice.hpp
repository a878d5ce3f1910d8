// The intra-op threads of train, eval and quantize: --threads when given, the environment's
// OMP_NUM_THREADS / MKL_NUM_THREADS when set (a launcher's ranks take one each), else LibTorch's
// default, lowered to the idle processors on a busy machine.
#pragma once
#include <string>

namespace dlready {

// Sets LibTorch's threads; returns what the header should say about the choice ("" = nothing).
std::string choose_threads(int requested);

}  // namespace dlready
