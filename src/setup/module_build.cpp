#include "setup/module_build.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "os/atomic_file.hpp"
#include "os/bounded_file.hpp"
#include "core/crc32c.hpp"
#include "core/json_text.hpp"
#include "core/path_text.hpp"
#include "os/posix_fs.hpp"
#include "os/process_runner.hpp"
#include "os/stop_signal.hpp"
#include "os/root_fs.hpp"
#include "core/text.hpp"
#include "probe/linux/probes.hpp"
#include "setup/logged_run.hpp"

namespace dlready {
namespace {

std::optional<std::string> env_value(const std::map<std::string, std::string>& env, const std::string& name) {
  auto it = env.find(name);
  if (it == env.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

// A regular file of at most `limit` bytes (core/bounded_file: a FIFO or device there is refused, not
// waited on); nullopt otherwise.
std::optional<std::string> read_small_file(const std::string& path, size_t limit) {
  return read_regular_file(path, limit, "a file").bytes;
}

// 1 when libc10.so names std::__cxx11 (every torch wheel since 2.7, conda's, LibTorch's cxx11
// archives), 0 for the old ABI of earlier pip wheels; nullopt when the file cannot be read. Read
// in chunks that overlap by the needle's length, at most 512 MiB.
std::optional<int> cxx11_abi_of(const std::string& libc10) {
  struct stat st {};
  if (::stat(libc10.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;  // a FIFO would block the open
  std::ifstream in(libc10, std::ios::binary);
  if (!in) return std::nullopt;
  static constexpr std::string_view kNeedle = "__cxx11";
  std::string carry, chunk(1 << 20, '\0');
  for (size_t total = 0; total < (512u << 20) && in; total += chunk.size()) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    std::string window = carry + chunk.substr(0, static_cast<size_t>(in.gcount()));
    if (window.find(kNeedle) != std::string::npos) return 1;
    carry = window.size() >= kNeedle.size() ? window.substr(window.size() - kNeedle.size() + 1) : window;
  }
  return 0;
}

std::optional<std::string> file_fingerprint(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return std::to_string(st.st_size) + "@" + std::to_string(st.st_mtim.tv_sec);
}

// The torch of `site_packages` as a TorchBuild, or why it cannot be built against.
std::optional<TorchBuild> torch_build_in(const PythonEnv& e, const TorchInstall& t, std::string& why) {
  TorchBuild b;
  b.torch_dir = path_join(t.site_packages, "torch");
  b.env_prefix = e.prefix;
  if (!t.version) {
    why = b.torch_dir + " has no readable version.py: reinstall torch (pip install --force-reinstall torch)";
    return std::nullopt;
  }
  b.version = *t.version;
  b.cuda = t.cuda;
  if (auto text = read_small_file(b.torch_dir + "/version.py", 64 * 1024))
    b.git_version = find_assignment(*text, "git_version").value_or("");
  auto abi = cxx11_abi_of(b.torch_dir + "/lib/libc10.so");
  if (!abi) {
    why = "torch " + b.version + " in " + b.torch_dir + " has no readable lib/libc10.so: reinstall torch";
    return std::nullopt;
  }
  b.cxx11_abi = *abi;
  // "" when libtorch_cpu.so cannot be read: the link step says why, and a cached module whose
  // fingerprint was "" too is still checked against torch's version, git hash and ABI.
  b.fingerprint = file_fingerprint(b.torch_dir + "/lib/libtorch_cpu.so").value_or("");
  return b;
}

std::string hex32(uint32_t v) {
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", v);
  return buf;
}

// Only characters every file system keeps; a version is text from a stranger's file.
std::string path_safe(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 64))
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-' || c == '_') ? c : '_';
  return out;
}

}  // namespace

std::optional<std::string> module_kit_beside(const std::string& exe) {
  if (exe.empty()) return std::nullopt;
  std::string kit = path_join(path_dirname(path_dirname(exe)), "share/dlready/module-src");
  if (path_exists(kit + "/CMakeLists.txt") && path_exists(kit + "/cmake/module_only.cmake")) return kit;
  return std::nullopt;
}

UserTorchSearch find_user_torch(const std::map<std::string, std::string>& env, const std::optional<std::string>& own_prefix) {
  UserTorchSearch s;
  RootFs fs("/");
  auto py = probe_python(fs, probe_env(env), own_prefix);
  // The first environment with torch is the one the user means (the active one comes first): a
  // broken torch there is said, not passed over for another environment's.
  for (const auto& e : py.envs)
    if (!e.torch.empty()) {
      s.torch = torch_build_in(e, e.torch.front(), s.why);
      return s;
    }
  s.why = "no torch in the " + std::to_string(py.envs.size()) +
            " Python environment(s) dlready found: activate the environment that has it (or set VIRTUAL_ENV), "
            "or install torch there (dlready setup)";
  return s;
}

std::string module_cache_root(const std::map<std::string, std::string>& env) {
  if (auto dir = env_value(env, "DLREADY_MODULE_CACHE")) return *dir;
  // Without HOME (a service, `env -i`), the account's home directory, never a folder relative to
  // wherever the command was run.
  const passwd* account = ::getpwuid(::getuid());
  auto home = env_value(env, "HOME");
  if (!home && account && account->pw_dir) home = account->pw_dir;
  auto dir = dlready_cache_dir(env_value(env, "XDG_CACHE_HOME"), home);
  return path_join(dir.value_or("/tmp/dlready-" + std::to_string(::getuid())), "modules");
}

CachedModule cached_module(const std::string& cache_root, const TorchBuild& torch) {
  CachedModule m;
  m.key = "torch-" + path_safe(torch.version) + "-cxx11abi" + std::to_string(torch.cxx11_abi) + "-" +
          hex32(crc32c(torch.torch_dir + "\n" + torch.git_version));
  m.dir = path_join(cache_root, m.key);
  m.library = m.dir + "/libdlready_train.so";
  m.manifest = m.dir + "/module.json";
  return m;
}

Status cached_module_problem(const CachedModule& m, const TorchBuild& torch,
                             const std::string& dlready_version) {
  if (!path_exists(m.library)) return Status::failure("not built yet for torch " + torch.version);
  auto text = read_small_file(m.manifest, 64 * 1024);
  std::string error;
  auto j = text ? parse_json_bounded(*text, &error) : nlohmann::json();
  if (!j.is_object())
    return Status::failure(m.manifest + " is missing or unreadable: built by an interrupted build");
  auto field = [&](const char* name) { return j.contains(name) && j[name].is_string() ? j[name].get<std::string>() : ""; };
  if (field("dlready_version") != dlready_version)
    return Status::failure("built by dlready " + field("dlready_version") + ", this is dlready " +
                           dlready_version);
  if (field("torch_version") != torch.version || field("torch_dir") != torch.torch_dir)
    return Status::failure("built for torch " + field("torch_version") + " in " +
                           field("torch_dir"));
  if (field("fingerprint") != torch.fingerprint)
    return Status::failure(
        "torch's libtorch_cpu.so changed since the module was built (reinstalled over it)");
  return {};
}

namespace {

struct BuildTools {
  std::string cxx, cxx_words;  // the compiler, and its --version line
  std::string cmake;
  std::string generator = "Unix Makefiles";
  std::string make_program;    // ninja or make
  std::string error;
  std::vector<std::string> fix;
};

// A short command's output (a tool's version), none when it fails.
std::optional<std::string> output_of(const std::vector<std::string>& argv, const std::string& scratch) {
  ProgramOptions o;
  o.output_file = scratch;
  o.timeout_s = 30;
  if (run_program(argv, o).status != 0) return std::nullopt;
  return read_small_file(scratch, 64 * 1024);
}

std::optional<std::string> on_path(const std::map<std::string, std::string>& env, const std::string& program) {
  if (program.find('/') != std::string::npos) return ::access(program.c_str(), X_OK) == 0 ? std::optional(program) : std::nullopt;
  return find_on_path(program, env_value(env, "PATH").value_or("/usr/local/bin:/usr/bin:/bin"));
}

const std::vector<std::string> kCompilerFix = {
    "Debian/Ubuntu: sudo apt install g++", "RHEL/Rocky/Fedora: sudo dnf install gcc-c++",
    "conda: conda install -c conda-forge gxx_linux-64 (then CXX=x86_64-conda-linux-gnu-g++)"};

// The user's C++ compiler: CXX, else c++, g++, clang++ on PATH; GCC 10 or newer (dlready is C++20).
void find_compiler(const ModuleBuildRequest& rq, const std::string& scratch, BuildTools& t) {
  std::vector<std::string> names = {"c++", "g++", "clang++"};
  if (auto cxx = env_value(rq.env, "CXX")) names = {*cxx};
  for (const auto& n : names)
    if (auto found = on_path(rq.env, n)) {
      t.cxx = *found;
      break;
    }
  if (t.cxx.empty()) {
    t.error = env_value(rq.env, "CXX") ? "CXX names " + names[0] + ", which is not an executable on PATH"
                                        : "no C++ compiler (c++, g++ or clang++) on PATH: the module is compiled against your torch";
    t.fix = kCompilerFix;
    return;
  }
  t.cxx_words = printable(first_line(output_of({t.cxx, "--version"}, scratch).value_or("")), 120);
  bool clang = contains(t.cxx_words, "clang");
  std::string version = trim(output_of({t.cxx, "-dumpversion"}, scratch).value_or(""));
  auto major = parse_int(version.substr(0, version.find('.')));
  if (!clang && major && *major < 10) {
    t.error = t.cxx + " is GCC " + std::to_string(*major) + ": dlready's module is C++20 and needs GCC 10 or newer";
    t.fix = {"install a newer g++ (Ubuntu 20.04: sudo apt install g++-10) and run CXX=g++-10 dlready module build"};
  }
}

// CMake >= 3.18 and a build program: PATH's, else PyPI's cmake and ninja in a venv of the cache
// made by the user's own Python.
void find_cmake_and_make(const ModuleBuildRequest& rq, const std::string& scratch, BuildTools& t) {
  std::string tools = path_join(rq.cache_root, "build-tools/bin");
  auto cmake_ok = [&](const std::string& c) {
    auto words = split(first_line(output_of({c, "--version"}, scratch).value_or("")), ' ');
    return words.size() >= 3 && compare_versions(words[2], "3.18") >= 0;
  };
  if (auto c = on_path(rq.env, "cmake"); c && cmake_ok(*c)) t.cmake = *c;
  else if (cmake_ok(tools + "/cmake")) t.cmake = tools + "/cmake";
  if (auto n = on_path(rq.env, "ninja")) t.make_program = *n;
  else if (path_exists(tools + "/ninja")) t.make_program = tools + "/ninja";
  if (!t.make_program.empty()) t.generator = "Ninja";
  else if (auto m = on_path(rq.env, "make")) t.make_program = *m;
  if (!t.cmake.empty() && !t.make_program.empty()) return;
  std::string python = path_join(rq.torch.env_prefix, "bin/python3");
  std::fprintf(rq.progress, "  no CMake 3.18+ or no build program on PATH: installing PyPI's cmake and ninja into %s\n",
               path_dirname(tools).c_str());
  auto made = run_logged({python, "-m", "venv", path_dirname(tools)}, scratch, 300);
  auto got = made.status == 0 ? run_logged({tools + "/python", "-m", "pip", "install", "--disable-pip-version-check", "-q",
                                            "cmake>=3.18", "ninja"}, scratch, 1800, true, rq.progress)
                              : made;
  if (got.status != 0 || !cmake_ok(tools + "/cmake") || !path_exists(tools + "/ninja")) {
    t.error = "CMake 3.18+ and ninja (or make) are needed to build the module, and pip could not install them";
    t.fix = {"pip install cmake ninja (into the active environment), or sudo apt install cmake ninja-build",
             "then run dlready module build again"};
    return;
  }
  t.cmake = tools + "/cmake";
  t.make_program = tools + "/ninja";
  t.generator = "Ninja";
}

// One job per processor, but no more than the memory holds (a LibTorch file takes ~1.5 GB to compile).
int build_jobs(int asked) {
  if (asked > 0) return asked;
  long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  long long avail_kb = 0;
  std::ifstream in("/proc/meminfo");
  for (std::string line; std::getline(in, line);)
    if (starts_with(line, "MemAvailable:")) avail_kb = parse_int(split(line, ' ')[1]).value_or(0);
  long by_memory = avail_kb > 0 ? static_cast<long>(avail_kb / (1536 * 1024)) : cpus;
  return static_cast<int>(std::max(1L, std::min(cpus > 0 ? cpus : 1L, by_memory)));
}

// Held while one process builds a module; a second waits, then finds it built.
class BuildLock {
 public:
  BuildLock(const std::string& path, std::FILE* progress) : fd_(::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644)) {
    if (fd_ < 0) return;
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
    std::fprintf(progress, "  another dlready is building this module: waiting for it (%s)\n", path.c_str());
    while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  ~BuildLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  BuildLock(const BuildLock&) = delete;
  BuildLock& operator=(const BuildLock&) = delete;

 private:
  int fd_;
};

std::string manifest_text(const ModuleBuildRequest& rq, const BuildTools& tools, double seconds) {
  const auto& t = rq.torch;
  nlohmann::json j = {{"dlready_version", rq.dlready_version}, {"torch_version", t.version},
                      {"torch_dir", t.torch_dir}, {"git_version", t.git_version},
                      {"cuda", t.cuda ? nlohmann::json(*t.cuda) : nlohmann::json()}, {"cxx11_abi", t.cxx11_abi},
                      {"fingerprint", t.fingerprint}, {"compiler", tools.cxx_words}, {"built_utc", utc_now()},
                      {"build_seconds", seconds}};
  return json_text(j, 2) + "\n";
}

ModuleBuildResult failed(std::string error, std::vector<std::string> fix) {
  ModuleBuildResult r;
  r.error = std::move(error);
  r.fix = std::move(fix);
  return r;
}

// Configures and compiles in `build_dir`: ok when the module was built there.
Status compile_module(const ModuleBuildRequest& rq, const BuildTools& tools, const CachedModule& m,
                      const std::string& build_dir) {
  std::vector<std::string> configure = {tools.cmake, "-S", rq.kit, "-B", build_dir, "-G", tools.generator,
                                        "-DCMAKE_BUILD_TYPE=Release", "-DDLREADY_MODULE_ONLY=ON",
                                        "-DCMAKE_CXX_COMPILER=" + tools.cxx, "-DCMAKE_MAKE_PROGRAM=" + tools.make_program,
                                        "-DDLREADY_TORCH_DIR=" + rq.torch.torch_dir,
                                        "-DDLREADY_TORCH_CXX11_ABI=" + std::to_string(rq.torch.cxx11_abi)};
  if (auto r = run_logged(configure, m.dir + "/configure.log", 600, false); r.interrupted)
    return Status::failure("interrupted while CMake configured the module");
  else if (r.status != 0)
    return Status::failure("CMake could not configure the module (exit " +
                           std::to_string(r.status) + "); its last lines:\n" + r.tail +
                           "  the whole log: " + m.dir + "/configure.log");
  int jobs = build_jobs(rq.jobs);
  std::fprintf(rq.progress, "  compiling with %d job%s (the compiler's lines follow; the log: %s/build.log)\n", jobs,
               jobs == 1 ? "" : "s", m.dir.c_str());
  std::fflush(rq.progress);
  if (auto r = run_logged({tools.cmake, "--build", build_dir, "--target", "dlready_train_module", "-j", std::to_string(jobs)},
                          m.dir + "/build.log", 7200, true, rq.progress);
      r.interrupted)
    return Status::failure("interrupted while the module compiled");
  else if (r.status != 0)
    return Status::failure("the module did not compile against torch " + rq.torch.version +
                           " with " + tools.cxx_words + " (exit " + std::to_string(r.status) +
                           "); the whole log: " + m.dir + "/build.log");
  return {};
}

}  // namespace

ModuleBuildResult build_module(const ModuleBuildRequest& rq) {
  // Paths reach CMake as -D values and arguments, never through a shell; but CMake reads a ';' in
  // a value as a list separator, so a path holding one builds nothing (and says "relative path").
  for (const auto& [what, path] : {std::pair<std::string, std::string>{"torch", rq.torch.torch_dir},
                                   {"dlready's module kit", rq.kit}, {"the module cache", rq.cache_root}})
    if (path.find(';') != std::string::npos)
      return failed(what + " is in " + printable(path, 200) + ", whose ';' CMake reads as a list separator: no module "
                    "can be built from there",
                    {what == "the module cache" ? "set DLREADY_MODULE_CACHE to a folder whose path has no ';'"
                                                : "make the environment in a folder whose path has no ';' "
                                                  "(python3 -m venv ~/venvs/torch) and install dlready and torch there"});
  auto m = cached_module(rq.cache_root, rq.torch);
  if (auto st = make_directories(m.dir); !st)
    return failed(st.error(), {"set DLREADY_MODULE_CACHE to a folder you can write, and run again"});
  BuildLock lock(m.dir + ".lock", rq.progress);
  if (!rq.force && cached_module_problem(m, rq.torch, rq.dlready_version).ok()) {
    ModuleBuildResult r;
    r.library = m.library;
    r.reused = true;
    return r;
  }
  BuildTools tools;
  std::string scratch = m.dir + "/tools.log";
  find_compiler(rq, scratch, tools);
  if (tools.error.empty()) find_cmake_and_make(rq, scratch, tools);
  if (!tools.error.empty()) return failed(tools.error, tools.fix);
  std::fprintf(rq.progress, "  torch %s (%s, C++11 ABI %s) in %s\n  with %s, %s\n", rq.torch.version.c_str(),
               rq.torch.cuda ? ("CUDA " + *rq.torch.cuda).c_str() : "CPU", rq.torch.cxx11_abi ? "on" : "off",
               rq.torch.torch_dir.c_str(), tools.cxx_words.c_str(), tools.generator.c_str());
  auto started = std::chrono::steady_clock::now();
  std::string build_dir = path_join(rq.cache_root, "build/" + m.key);
  // Ctrl-C ends CMake and the compilers it started (os/process_runner.hpp); the half-built folder goes.
  StopOnSignal stop;
  Status compiled = compile_module(rq, tools, m, build_dir);
  if (stop.requested()) {
    remove_tree(build_dir);
    ModuleBuildResult r = failed(compiled.ok() ? "interrupted" : compiled.error(), {"dlready module build starts it again"});
    r.error += "; removed the partial build " + build_dir;
    r.interrupted = true;
    return r;
  }
  if (!compiled.ok())
    return failed(
        compiled.error(),
        {"a newer compiler may help: CXX=g++-12 dlready module build",
         "the log above names the first error; dlready module build --force starts again"});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  auto built = read_small_file(build_dir + "/libdlready_train.so", 1u << 30);
  if (!built) return failed(build_dir + "/libdlready_train.so was not written by the build", {});
  // The CPU module (a CUDA torch's build makes it beside the main one) first, so that the main
  // module and the manifest written last never stand beside a CPU module of an older build.
  std::string cpu_library = path_join(m.dir, "libdlready_train_cpu.so");
  if (auto cpu = read_small_file(build_dir + "/libdlready_train_cpu.so", 1u << 30)) {
    if (auto st = write_file_atomically(cpu_library, *cpu, 0755); !st) return failed(st.error(), {});
  } else {
    ::unlink(cpu_library.c_str());
  }
  if (auto st = write_file_atomically(m.library, *built, 0755); !st) return failed(st.error(), {});
  if (auto st = write_file_atomically(m.manifest, manifest_text(rq, tools, seconds)); !st) return failed(st.error(), {});
  remove_tree(build_dir);  // gigabytes of objects and the precompiled header: the module is what stays
  ModuleBuildResult r;
  r.library = m.library;
  r.seconds = seconds;
  return r;
}

}  // namespace dlready
