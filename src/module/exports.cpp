// The two symbols libdlready_train.so exports (module_api/module_abi.hpp). Nothing but C types
// crosses here, and no exception leaves the module.
#include <cstdio>
#include <exception>

#include "module/module_entry.hpp"
#include "module_api/module_abi.hpp"

extern "C" __attribute__((visibility("default"))) unsigned dlready_module_abi() { return dlready::kModuleAbiVersion; }

extern "C" __attribute__((visibility("default"))) int dlready_module_run(const char* command, const char* options_json) {
  try {
    return dlready::to_int(dlready::run_module_command(command ? command : "", options_json ? options_json : ""));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dlready %s: %s\n", command ? command : "", e.what());
    return dlready::to_int(dlready::ExitCode::failed);
  }
}
