#include "cli/torch_module.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "core/root_fs.hpp"
#include "diagnose/rules.hpp"
#include "probe/gather.hpp"

namespace dlready {
namespace {

std::string module_path() {
  if (const char* p = std::getenv("DLREADY_TRAIN_MODULE")) return p;
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  std::string exe = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "dlready";
  return path_join(path_dirname(exe), "libdlready_train.so");
}

void explain_load_failure(const std::string& command, const std::string& path, const std::string& error) {
  std::fprintf(stderr, "dlready %s: cannot load the LibTorch module\n  %s\n  %s\n", command.c_str(), path.c_str(),
               error.c_str());
  GatherOptions g;
  g.env = process_environment();
  auto facts = gather_facts(g);
  if (facts.error.empty()) {
    Report r = diagnose(facts.facts);
    std::fprintf(stderr, "\nWhat dlready doctor says about this machine:\n  %s\n", r.verdict.summary.c_str());
    for (const auto& x : r.findings) {
      if (x.severity != Severity::error || x.check == "gpu") continue;
      std::fprintf(stderr, "  ✗ %s [%s]\n", x.title.c_str(), x.id.c_str());
      for (const auto& c : x.fix) std::fprintf(stderr, "      → %s\n", c.c_str());
    }
  }
  std::fprintf(stderr,
               "\nFix:\n  → run ./scripts/setup.sh (installs the pinned PyTorch whose LibTorch the module links)\n"
               "  → if a CUDA library is named above: run dlready doctor and follow its findings; unset\n"
               "    LD_LIBRARY_PATH if it points at another CUDA installation\n");
}

}  // namespace

void* torch_module_entry(const std::string& command, const char* symbol) {
  std::string path = module_path();
  void* lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* err = ::dlerror();
    explain_load_failure(command, path, err ? err : "dlopen failed");
    return nullptr;
  }
  void* entry = ::dlsym(lib, symbol);
  if (!entry)
    explain_load_failure(command, path,
                         std::string("the module has no ") + symbol + " (built from another dlready version?)");
  return entry;
}

}  // namespace dlready
