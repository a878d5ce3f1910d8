// The LibTorch commands (train, verify, bench) live in one module, libdlready_train.so, loaded at
// run time so that a missing or broken LibTorch/CUDA library never kills the program with a raw
// loader error: the user gets the library that failed, the doctor's diagnosis, and the fix.
#pragma once
#include <string>

namespace dlready {

// The module's exported function `symbol`, or nullptr after explaining to stderr (as
// "dlready <command>: ...") why the module could not be loaded.
void* torch_module_entry(const std::string& command, const char* symbol);

// Runs the module's `int symbol(const Options*)` with `options`; `cannot_load` when the module
// could not be loaded (already explained).
template <class Options>
int run_torch_module(const std::string& command, const char* symbol, const Options& options, int cannot_load) {
  using Entry = int (*)(const Options*);
  auto entry = reinterpret_cast<Entry>(torch_module_entry(command, symbol));
  return entry ? entry(&options) : cannot_load;
}

}  // namespace dlready
