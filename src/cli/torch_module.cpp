#include "cli/torch_module.hpp"

#include <algorithm>

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "cli/cuda_preload.hpp"
#include "cli/module_torch.hpp"
#include "os/posix_fs.hpp"
#include "os/root_fs.hpp"
#include "doctor/examine.hpp"
#include "probe/linux/probes.hpp"
#include "module_api/module_abi.hpp"

namespace dlready {

ModuleLocation locate_train_module() {
  ModuleLocation loc;
  if (const char* p = std::getenv("DLREADY_TRAIN_MODULE")) {
    loc.path = p;
    return loc;
  }
  std::string exe = own_executable();
  if (exe.empty()) exe = "dlready";
  // Beside the binary (a build tree), else where `cmake --install` puts it (<prefix>/lib/dlready).
  std::string beside = path_join(path_dirname(exe), "libdlready_train.so");
  std::string installed = path_join(path_dirname(path_dirname(exe)), "lib/dlready/libdlready_train.so");
  loc.path = ::access(beside.c_str(), F_OK) != 0 && ::access(installed.c_str(), F_OK) == 0 ? installed : beside;
  loc.kit = module_kit_beside(exe);
  if (!loc.kit || ::access(loc.path.c_str(), F_OK) == 0) {
    loc.kit.reset();
    return loc;
  }
  auto env = process_environment();
  auto found = find_user_torch(env, own_environment());
  loc.path.clear();
  if (!found.torch) {
    loc.problem = found.why;
    return loc;
  }
  loc.torch = found.torch;
  auto cached = cached_module(module_cache_root(env), *found.torch);
  loc.path = cached.library;
  loc.problem = cached_module_problem(cached, *found.torch, DLREADY_VERSION).error();
  return loc;
}

std::string train_module_path() { return locate_train_module().path; }

ModuleBuildRequest module_build_request(const ModuleLocation& loc) {
  ModuleBuildRequest rq;
  rq.kit = loc.kit.value_or("");
  if (loc.torch) rq.torch = *loc.torch;
  rq.env = process_environment();
  rq.cache_root = module_cache_root(rq.env);
  rq.dlready_version = DLREADY_VERSION;
  return rq;
}

void describe_own_module(GatherOptions& opt) {
  auto loc = locate_train_module();
  if (loc.kit && !loc.torch) return;  // no torch: the doctor's torch findings say what to do
  if (loc.path.empty()) return;
  opt.own_module = loc.path;
  ModuleTorch torch;
  if (Status s = locate_module_torch(loc.path, torch); !s.ok()) opt.own_module_problem = s.error();
  else opt.own_module_torch_lib = torch.moved_to;
  if (loc.kit) opt.own_module_built_by = "dlready module build";
}

namespace {

// pip, uv and pipx put the executable in a scripts folder beside a Python (a venv's bin/, a tool
// environment's): such a dlready came from a wheel, not from a build tree.
bool installed_by_python() {
  std::string exe = own_executable();
  if (exe.empty()) return false;
  std::string dir = path_dirname(exe);
  return ::access((dir + "/python3").c_str(), F_OK) == 0 || ::access((dir + "/python").c_str(), F_OK) == 0;
}

void explain_load_failure(const std::string& command, const std::string& path, const std::string& error,
                          bool ask_doctor, const std::string& first_fix = "") {
  std::fprintf(stderr, "dlready %s: cannot load the LibTorch module\n  %s\n  %s\n", command.c_str(), path.c_str(),
               error.c_str());
  if (ask_doctor) {
    auto e = examine_this_machine();
    if (e.error.empty()) {
      // The verdict's CUDA half only: its "training works (dlready train)" is what just failed.
      const auto& v = e.report.verdict;
      std::string cuda = v.cuda_usable == true    ? "CUDA is usable here"
                         : v.cuda_usable == false ? "CUDA is not usable here: " + error_findings_line(e, "no error finding")
                                                  : "CUDA could not be checked here";
      std::fprintf(stderr, "\nWhat dlready doctor says about this machine:\n  %s\n", cuda.c_str());
      for (const auto& x : e.report.findings) {
        if (x.severity != Severity::error || x.check == "gpu") continue;
        std::fprintf(stderr, "  ✗ %s [%s]\n", x.title.c_str(), x.id.c_str());
        for (const auto& c : x.fix) std::fprintf(stderr, "      → %s\n", c.c_str());
      }
    }
  }
  std::fprintf(stderr, "\nFix:\n");
  if (!first_fix.empty()) std::fprintf(stderr, "  → %s\n", first_fix.c_str());
  const bool from_env = std::getenv("DLREADY_TRAIN_MODULE") != nullptr;
  if (from_env && ::access(path.c_str(), F_OK) != 0)
    std::fprintf(stderr, "  → DLREADY_TRAIN_MODULE names no file: point it at libdlready_train.so, or unset it\n");
  else if (::access(path.c_str(), F_OK) != 0 && installed_by_python())
    std::fprintf(stderr,
                 "  → this dlready was installed from a wheel without the module's sources (share/dlready/module-src):\n"
                 "    reinstall it (pip install --force-reinstall dlready), or set DLREADY_TRAIN_MODULE to a\n"
                 "    libdlready_train.so built against your torch\n");
  else if (::access(path.c_str(), F_OK) != 0)
    std::fprintf(stderr,
                 "  → the module is not beside this dlready: keep libdlready_train.so next to the binary when you\n"
                 "    copy it, install both with `cmake --install build/release --prefix ~/.local`, or set\n"
                 "    DLREADY_TRAIN_MODULE to the module's path\n");
  else
    std::fprintf(stderr,
                 "  → run ./scripts/setup.sh (builds the dlready binary and its module together, against the "
                 "pinned PyTorch's LibTorch)\n");
  if (ask_doctor)
    std::fprintf(stderr,
                 "  → if a CUDA library is named above: run dlready doctor and follow its findings; unset\n"
                 "    LD_LIBRARY_PATH if it points at another CUDA installation\n");
  if (from_env)
    std::fprintf(stderr, "  → or unset DLREADY_TRAIN_MODULE to use the module next to the dlready binary\n");
}

// The pip line that puts the module's own torch build into the environment the user runs.
std::string torch_install_line(const std::optional<std::string>& built_for) {
  if (!built_for) return "";
  const std::string version = built_for->substr(0, built_for->find(' '));
  const auto plus = version.find('+');
  const std::string index = plus == std::string::npos ? "" : " --index-url https://download.pytorch.org/whl/" + version.substr(plus + 1);
  return "install that torch into the environment you run dlready in: pip install torch==" + version + index;
}

// A wheel-installed dlready's module, built for the user's torch now unless it is already: false
// (explained) when there is no torch or the build fails; `interrupted` when Ctrl-C stopped it.
bool ensure_module_built(const std::string& command, ModuleLocation& loc, bool& interrupted) {
  if (!loc.torch) {
    std::fprintf(stderr,
                 "dlready %s: this dlready (installed from a wheel) runs %s on your own torch, and finds none\n"
                 "  %s\n",
                 command.c_str(), command.c_str(), loc.problem.c_str());
    return false;
  }
  if (loc.problem.empty()) return true;
  std::fprintf(stderr, "dlready %s: the LibTorch module is %s: building it now (once per torch; `dlready module build` "
               "does the same)\n", command.c_str(), loc.problem.c_str());
  auto built = build_module(module_build_request(loc));
  interrupted = built.interrupted;
  if (!built.error.empty()) {
    std::fprintf(stderr, "dlready %s: cannot build the LibTorch module: %s\n", command.c_str(), built.error.c_str());
    for (const auto& f : built.fix) std::fprintf(stderr, "  → %s\n", f.c_str());
    return false;
  }
  if (!built.reused) std::fprintf(stderr, "dlready %s: module built in %.0f s: %s\n", command.c_str(), built.seconds,
                                  built.library.c_str());
  loc.path = built.library;
  return true;
}

constexpr const char* kCpuModuleName = "libdlready_train_cpu.so";  // cmake/torch_layers.cmake

// Whether the command may use a CUDA device: --device cpu (or mps) says no; cuda:N yes; the
// default (auto, all) only where a GPU's device node exists.
bool cuda_may_run(const nlohmann::json& options) {
  const std::string device = options.is_object() && options.contains("device") && options["device"].is_string()
                                 ? options["device"].get<std::string>()
                                 : "";
  if (device.rfind("cpu", 0) == 0 || device.rfind("mps", 0) == 0) return false;
  if (device.rfind("cuda", 0) == 0) return true;
  return ::access("/dev/nvidiactl", F_OK) == 0 || ::access("/dev/dxg", F_OK) == 0;
}

// The module's run function once its ABI version is the one this binary speaks; else nullptr.
// Without CUDA in the run, only the libraries LibTorch loads with it are preloaded (by absolute path,
// so no other copy can take their names); those cuDNN and NVRTC open once CUDA work runs are not
// (0.05-0.08 s of a CPU run on two cores).
ModuleRunFn load_module(const std::string& command, bool cuda, bool& interrupted) {
  auto loc = locate_train_module();
  if (loc.kit && !ensure_module_built(command, loc, interrupted)) return nullptr;
  std::string path = loc.path;
  // A run that cannot use CUDA loads the CPU module built beside the main one, where there is one:
  // LibTorch's CUDA half (libtorch_cuda, cuBLAS, cuDNN, ...: 0.15 s and 350 MB of a CPU run on two
  // cores) then never loads, nor the wheel's CUDA libraries before it. DLREADY_TRAIN_MODULE names
  // the one module to load.
  bool cpu_module = false;
  if (!cuda && !std::getenv("DLREADY_TRAIN_MODULE")) {
    std::string cpu = path_join(path_dirname(path), kCpuModuleName);
    struct stat cs {};
    if (::stat(cpu.c_str(), &cs) == 0 && S_ISREG(cs.st_mode)) path = cpu, cpu_module = true;
  }
  // Opening a FIFO waits for a writer forever (dlopen and the preload's ELF read both open it).
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    explain_load_failure(command, path, std::string(file_kind(st.st_mode)) + ", not a library: nothing was opened", false);
    return nullptr;
  }
  // The wheel's CUDA libraries first, by absolute path (cli/cuda_preload.hpp), and torch's own when
  // the module's torch moved (cli/module_torch.hpp); then the module, which exports only its two
  // entry points (src/module/exports.map), into the global scope as a program linked against
  // LibTorch has them.
  ModuleTorch torch;
  if (auto s = locate_module_torch(path, torch); !s.ok()) {
    explain_load_failure(command, path, s.error(), false, torch_install_line(module_built_for_torch(path)));
    return nullptr;
  }
  CudaPreload preload;
  if (!cpu_module) preload = plan_cuda_preload(torch.run_path);
  if (!cuda)
    preload.libraries.erase(std::remove_if(preload.libraries.begin(), preload.libraries.end(),
                                           [](const PreloadedLibrary& l) { return l.for_cuda_work; }),
                            preload.libraries.end());
  for (const auto& lib : torch.torch_libraries) preload.libraries.push_back({lib, true, false, ""});
  preload_cuda_libraries(preload);
  void* lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    const char* err = ::dlerror();
    explain_load_failure(command, path, err ? err : "dlopen failed", true);
    return nullptr;
  }
  auto abi = reinterpret_cast<ModuleAbiFn>(::dlsym(lib, kModuleAbiSymbol));
  if (!abi) {
    explain_load_failure(command, path,
                         "it exports no ABI version: a module from another dlready version (or not a dlready module)",
                         false);
    return nullptr;
  }
  if (unsigned v = abi(); v != kModuleAbiVersion) {
    explain_load_failure(command, path,
                         "module ABI version " + std::to_string(v) + ", this dlready needs " +
                             std::to_string(kModuleAbiVersion) + ": the module comes from another build",
                         false);
    return nullptr;
  }
  auto run = reinterpret_cast<ModuleRunFn>(::dlsym(lib, kModuleRunSymbol));
  if (!run) explain_load_failure(command, path, std::string("the module has no ") + kModuleRunSymbol, false);
  return run;
}

// The module has written, synced and renamed everything it keeps, and printed its report; what is
// left is LibTorch's static destructors, which deregister its operators one by one (~70 ms on a
// 2-core machine: a fifth of a one-epoch run's fixed cost) and, on a GPU, tear down the CUDA
// context the kernel frees anyway. So the process ends here once the streams are flushed, as
// clang ends without freeing its AST (-disable-free).
[[noreturn]] void end_after_module(int code) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(code);
}

}  // namespace

ExitCode run_torch_module(const std::string& command, const nlohmann::json& options) {
  std::string options_json;
  try {
    options_json = options.dump();  // strict: a replaced byte would name another file
  } catch (const nlohmann::json::type_error&) {
    std::fprintf(stderr, "dlready %s: an option (a path or a name) is not valid UTF-8; use a UTF-8 path or rename it\n",
                 command.c_str());
    return ExitCode::usage;
  }
  bool interrupted = false;
  ModuleRunFn run = load_module(command, cuda_may_run(options), interrupted);
  if (!run) return interrupted ? ExitCode::interrupted : ExitCode::cannot_load;
  int code = run(command.c_str(), options_json.c_str());
  end_after_module(code);
}

}  // namespace dlready
