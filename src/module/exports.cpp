// The two symbols libdlready_train.so exports (module_api/module_abi.hpp). Nothing but C types
// crosses here, and no exception leaves the module.
#include <cstdio>
#include <exception>

#include "module/module_entry.hpp"
#include "module_api/module_abi.hpp"

#ifndef DLREADY_BUILT_FOR_TORCH
#define DLREADY_BUILT_FOR_TORCH ""
#endif
// "2.11.0+cu130 <git_version>": the torch this module was built against, read from the file by the
// binary (cli/module_torch.hpp) without loading the module, which cannot load once that torch is gone.
extern "C" __attribute__((used, section(".dlready_torch"))) const char dlready_built_for_torch[] = DLREADY_BUILT_FOR_TORCH;

extern "C" __attribute__((visibility("default"))) unsigned dlready_module_abi() { return dlready::kModuleAbiVersion; }

extern "C" __attribute__((visibility("default"))) int dlready_module_run(const char* command, const char* options_json) {
  try {
    return dlready::to_int(dlready::run_module_command(command ? command : "", options_json ? options_json : ""));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dlready %s: %s\n", command ? command : "", e.what());
    return dlready::to_int(dlready::ExitCode::failed);
  }
}
