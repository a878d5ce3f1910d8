// The live Metal probe: torch's MPSDevice test asked from plain C in a child process (`dlready
// --metal-child`, spawned, never forked: Apple's frameworks are not fork-safe). The child loads
// libobjc, Metal, MetalPerformanceShadersGraph and CoreFoundation with dlopen (they live in the dyld
// shared cache, not on disk, and no SDK is needed to build this), asks MPSGraph for each torch
// release's gate selector, and lists MTLCopyAllDevices with isLowPower and supportsFamily:Mac2 —
// never MTLCreateSystemDefaultDevice, which answers nil to command-line tools on recent macOS.
// Compiled for macOS only; nothing here runs it (cross-built with zig, not run on a Mac).
#include <dlfcn.h>
#include <mach-o/dyld.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <string>

#include "probe/macos/macos_probes.hpp"

extern char** environ;

namespace dlready {
namespace {

using Id = void*;
using Sel = void*;

// The selector each torch release's MPS gate tests (aten/src/ATen/mps/MPSDevice.mm), by the macOS
// that introduced it.
struct Gate {
  const char* macos;
  const char* selector;
};
constexpr Gate kGates[] = {
    {"12.3", "LSTMWithSourceTensor:recurrentWeight:inputWeight:bias:initState:initCell:descriptor:name:"},
    {"13.0", "cumulativeSumWithTensor:axis:name:"},
    {"14.0", "HermiteanToRealFFTWithTensor:axes:descriptor:name:"}};

struct ObjC {
  Sel (*sel)(const char*) = nullptr;
  Id (*get_class)(const char*) = nullptr;
  Id (*class_of)(Id) = nullptr;
  bool (*responds)(Id, Sel) = nullptr;
  void (*send)() = nullptr;  // objc_msgSend: cast to the exact type before each call (arm64 is not variadic)
  long (*count)(const void*) = nullptr;
  const void* (*at)(const void*, long) = nullptr;
  Id (*all_devices)() = nullptr;
};

void* open_system(const char* path, std::string& error) {
  void* h = ::dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h && error.empty()) error = std::string("cannot load ") + path + ": " + ::dlerror();
  return h;
}

template <class F>
void find(void* lib, const char* name, F& out, std::string& error) {
  if (lib) out = reinterpret_cast<F>(::dlsym(lib, name));
  if (!out && error.empty()) error = std::string("no symbol ") + name;
}

bool load(ObjC& o, std::string& error) {
  void* objc = open_system("/usr/lib/libobjc.A.dylib", error);
  void* metal = open_system("/System/Library/Frameworks/Metal.framework/Metal", error);
  (void)open_system("/System/Library/Frameworks/MetalPerformanceShadersGraph.framework/MetalPerformanceShadersGraph", error);
  void* cf = open_system("/System/Library/Frameworks/CoreFoundation.framework/CoreFoundation", error);
  find(objc, "sel_registerName", o.sel, error);
  find(objc, "objc_getClass", o.get_class, error);
  find(objc, "object_getClass", o.class_of, error);
  find(objc, "class_respondsToSelector", o.responds, error);
  find(objc, "objc_msgSend", o.send, error);
  find(cf, "CFArrayGetCount", o.count, error);
  find(cf, "CFArrayGetValueAtIndex", o.at, error);
  find(metal, "MTLCopyAllDevices", o.all_devices, error);
  return error.empty();
}

// One BOOL-returning message (BOOL is signed char on x86_64, bool on arm64: one byte either way).
bool ask_bool(const ObjC& o, Id object, const char* selector) {
  Sel s = o.sel(selector);
  if (!o.responds(o.class_of(object), s)) return false;
  return reinterpret_cast<unsigned char (*)(Id, Sel)>(o.send)(object, s) != 0;
}

std::string device_name(const ObjC& o, Id device) {
  Id name = reinterpret_cast<Id (*)(Id, Sel)>(o.send)(device, o.sel("name"));
  const char* utf8 = name ? reinterpret_cast<const char* (*)(Id, Sel)>(o.send)(name, o.sel("UTF8String")) : nullptr;
  return utf8 ? utf8 : "";
}

}  // namespace

int run_metal_child() {
  ObjC o;
  std::string error;
  if (!load(o, error)) {
    std::fputs(metal_wire_line({"error", error}).c_str(), stdout);
    return 0;
  }
  Id graph = o.get_class("MPSGraph");
  for (const auto& g : kGates)
    std::fputs(metal_wire_line({"gate", g.macos, graph && o.responds(graph, o.sel(g.selector)) ? "1" : "0"}).c_str(), stdout);
  Id devices = o.all_devices();
  long n = devices ? o.count(devices) : 0;
  const Sel family = o.sel("supportsFamily:");
  for (long i = 0; i < n; ++i) {
    Id d = const_cast<void*>(o.at(devices, i));
    bool mac2 = o.responds(o.class_of(d), family) && reinterpret_cast<unsigned char (*)(Id, Sel, long)>(o.send)(d, family, 2002) != 0;
    std::fputs(metal_wire_line({"device", device_name(o, d), ask_bool(o, d, "isLowPower") ? "1" : "0", mac2 ? "1" : "0"}).c_str(),
               stdout);
  }
  std::fflush(stdout);
  return 0;
}

namespace {

std::string own_executable() {
  char path[4096];
  uint32_t size = sizeof path;
  return _NSGetExecutablePath(path, &size) == 0 ? std::string(path) : std::string();
}

// Reads the child's lines until it closes its end or the time is up (then it is killed).
std::string read_child(int fd, pid_t pid, int timeout_ms, bool& timed_out) {
  std::string out;
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  char buf[4096];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now()).count();
    pollfd p{fd, POLLIN, 0};
    if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) == 0) {
      timed_out = true;
      ::kill(pid, SIGKILL);
      return out;
    }
    ssize_t got = ::read(fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return out;
    if (out.size() < 64 * 1024) out.append(buf, static_cast<size_t>(got));
  }
}

}  // namespace

MetalProbe ask_metal(int timeout_ms) {
  MetalProbe p;
  std::string self = own_executable();
  int fds[2];
  if (self.empty() || ::pipe(fds) != 0) {
    p.error = "cannot start the Metal probe (no path to this program, or no pipe)";
    return p;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  char* argv[] = {self.data(), const_cast<char*>("--metal-child"), nullptr};
  pid_t pid = 0;
  int spawned = ::posix_spawn(&pid, self.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (spawned != 0) {
    ::close(fds[0]);
    p.error = "cannot start the Metal probe: " + std::string(std::strerror(spawned));
    return p;
  }
  bool timed_out = false;
  std::string out = read_child(fds[0], pid, timeout_ms, timed_out);
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  p = parse_metal_wire(out);
  if (timed_out) p.error = "the Metal probe did not answer within " + std::to_string(timeout_ms) + " ms";
  else if (WIFSIGNALED(status)) p.error = "the Metal probe crashed (signal " + std::to_string(WTERMSIG(status)) + ")";
  return p;
}

}  // namespace dlready
