#include "probe/linux/child_wire.hpp"

#include <dlfcn.h>

#include "facts/access_log.hpp"
#include "core/text.hpp"

namespace dlready {

void* open_library(const std::string& path, const Emit& emit) {
  void* lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* err = ::dlerror();
    emit("load_error", err ? err : "dlopen failed");
    return nullptr;
  }
  emit("loaded", "1");
  return lib;
}

SymbolLookup dlsym_lookup(void* library) {
  return [library](const char* name) { return ::dlsym(library, name); };
}

std::optional<ChildResult> run_driver_child(const RootFs& fs, const CaptureManifest* replay, const std::string& name,
                                            const ChildBody& body, int timeout_ms) {
  if (replay) {
    auto it = replay->children.find(name);
    if (it == replay->children.end()) return std::nullopt;
    return child_result(it->second);
  }
  ChildResult r = run_child_probe(body, timeout_ms);
  if (auto* log = fs.access_log()) log->children[name] = child_answer(r);
  return r;
}

}  // namespace dlready
