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

namespace {

const char* end_name(ChildResult::End e) {
  switch (e) {
    case ChildResult::End::exited: return "exited";
    case ChildResult::End::signalled: return "signalled";
    case ChildResult::End::timed_out: return "timed_out";
    case ChildResult::End::fork_failed: return "fork_failed";
  }
  return "exited";
}

ChildResult::End end_from(const std::string& s) {
  for (auto e : {ChildResult::End::signalled, ChildResult::End::timed_out, ChildResult::End::fork_failed})
    if (s == end_name(e)) return e;
  return ChildResult::End::exited;
}

}  // namespace

std::optional<ChildResult> run_driver_child(const RootFs& fs, const CaptureManifest* replay, const std::string& name,
                                            const ChildBody& body, int timeout_ms) {
  if (replay) {
    auto it = replay->children.find(name);
    if (it == replay->children.end()) return std::nullopt;
    ChildResult r;
    r.end = end_from(it->second.end);
    r.code = it->second.code;
    r.elapsed_ms = it->second.elapsed_ms;
    r.values = it->second.values;
    return r;
  }
  ChildResult r = run_child_probe(body, timeout_ms);
  if (auto* log = fs.access_log()) log->children[name] = ChildAnswer{end_name(r.end), r.code, r.elapsed_ms, r.values};
  return r;
}

}  // namespace dlready
