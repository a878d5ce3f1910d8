#include "probe/child_wire.hpp"

#include <dlfcn.h>

#include "core/access_log.hpp"
#include "core/text.hpp"

namespace dlready {

std::optional<int> int_value(const ChildResult& r, const std::string& key) {
  auto it = r.values.find(key);
  if (it == r.values.end()) return std::nullopt;
  auto v = parse_int(it->second);
  if (!v) return std::nullopt;
  return static_cast<int>(*v);
}

std::optional<std::string> str_value(const ChildResult& r, const std::string& key) {
  auto it = r.values.find(key);
  if (it == r.values.end()) return std::nullopt;
  return it->second;
}

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

bool load_symbol_address(void* lib, const char* name, void** slot, const Emit& emit, bool required) {
  *slot = ::dlsym(lib, name);
  if (!*slot && required) emit("missing_symbol", name);
  return *slot != nullptr;
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

void classify_child(const ChildResult& r, ProbeStatus& status, std::string& detail) {
  if (r.end == ChildResult::End::timed_out) {
    status = ProbeStatus::timeout;
    detail = r.values.count("init_started") ? "initialisation did not return" : "library load did not return";
  } else if (r.end == ChildResult::End::signalled) {
    status = ProbeStatus::crashed;
    detail = std::string("killed by signal ") + std::to_string(r.code) +
             (r.values.count("init_started") ? " during initialisation" : " while loading");
  } else if (r.end == ChildResult::End::fork_failed) {
    status = ProbeStatus::failed;
    detail = "could not start the probe process";
  } else if (auto e = str_value(r, "load_error")) {
    status = ProbeStatus::load_failed;
    detail = *e;
  } else if (auto m = str_value(r, "missing_symbol")) {
    status = ProbeStatus::symbol_missing;
    detail = "missing symbol " + *m;
  } else if (r.code != 0) {
    status = ProbeStatus::failed;
    detail = "probe exited with status " + std::to_string(r.code);
  } else {
    status = ProbeStatus::ok;
  }
}

}  // namespace dlready
