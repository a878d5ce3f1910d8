// Each Python's interpreter and each PyTorch's libtorch_cpu.dylib, read as Mach-O files: which
// CPUs they run on, the oldest macOS their loader accepts, whether torch links Metal's graph
// framework (built with MPS).
#include <sys/stat.h>

#include <algorithm>

#include "binfmt/macho_reader.hpp"
#include "core/path_text.hpp"
#include "core/scan.hpp"
#include "core/text.hpp"
#include "os/posix_fs.hpp"
#include "probe/macos/macos_probes.hpp"

namespace dlready {
namespace {

ByteReader root_reader(const RootFs& fs, const std::string& path) {
  return [&fs, path](uint64_t offset, size_t len) { return fs.read_at(path, offset, len); };
}

// A Mach-O file read through the root, or what is wrong with it; what is not a file (a FIFO, a
// device, a folder) is named as such and never opened (a FIFO would wait for a writer).
MachOResult read_macho(const RootFs& fs, const std::string& path) {
  auto st = fs.stat(path);
  if (!st) return {std::nullopt, "cannot be read"};
  if (!S_ISREG(st->mode)) return {std::nullopt, std::string(file_kind(st->mode)) + ", not a file"};
  return parse_macho(root_reader(fs, path));
}

std::vector<std::string> cpu_names(const MachOFile& f) {
  std::vector<std::string> names;
  for (const auto& s : f.slices) names.push_back(macho_cpu_name(s.cputype));
  return names;
}

// <prefix>/bin/python3.X (the version's own name first), else python3, else python.
std::optional<std::string> interpreter_of(const RootFs& fs, const PythonEnv& e) {
  std::vector<std::string> names;
  if (e.python_version) names.push_back("python" + *e.python_version);
  names.insert(names.end(), {"python3", "python"});
  for (const auto& n : names)
    if (fs.exists(e.prefix + "/bin/" + n)) return e.prefix + "/bin/" + n;
  return std::nullopt;
}

// The first `"subdir": "osx-arm64"` of a conda-meta record (a short lower-case name, else none).
std::optional<std::string> subdir_value(std::string_view text) {
  static constexpr std::string_view kKey = "\"subdir\"";
  for (size_t at = text.find(kKey); at != std::string_view::npos; at = text.find(kKey, at + 1)) {
    TextCursor c{text, at + kKey.size()};
    c.skip_spaces();
    if (!c.eat(":")) continue;
    c.skip_spaces();
    if (!c.eat("\"")) continue;
    auto value = c.take_exactly([](char ch) { return (ch >= 'a' && ch <= 'z') || is_ascii_digit(ch) || ch == '_' || ch == '-'; }, 1, 32);
    if (!value.empty() && c.eat("\"")) return std::string(value);
  }
  return std::nullopt;
}

// conda-meta/python-3.*.json's "subdir" (osx-64 on an Intel conda, osx-arm64 on Apple Silicon's).
std::optional<std::string> conda_subdir(const RootFs& fs, const std::string& prefix) {
  for (const auto& name : fs.list(prefix + "/conda-meta")) {
    if (!starts_with(name, "python-3") || !ends_with(name, ".json")) continue;
    if (auto text = fs.read(prefix + "/conda-meta/" + name, 256 * 1024))
      if (auto subdir = subdir_value(*text)) return subdir;
  }
  return std::nullopt;
}

// PEP 668's marker beside the standard library the interpreter uses (Homebrew's is in its Cellar:
// the interpreter's links are followed); a venv's own pip is never blocked.
bool externally_managed(const RootFs& fs, const PythonEnv& e, const std::optional<std::string>& interpreter) {
  if (e.kind == "venv" || !e.python_version) return false;
  std::string stdlib = "/lib/python" + *e.python_version + "/EXTERNALLY-MANAGED";
  if (fs.exists(e.prefix + stdlib)) return true;
  auto real = interpreter ? fs.resolve(*interpreter) : std::nullopt;
  return real && fs.exists(path_dirname(path_dirname(*real)) + stdlib);
}

bool is_openmp(const std::string& name) {
  return ends_with(name, ".dylib") && (starts_with(name, "libomp") || starts_with(name, "libiomp5") ||
                                       starts_with(name, "libgomp"));
}

// The OpenMP runtimes of one environment: in its lib/ (conda's llvm-openmp, MKL's libiomp5) and in
// each package of its site-packages (torch/lib, sklearn/.dylibs, a package's own folder), each file
// once however many links name it.
std::vector<std::string> openmp_runtimes(const RootFs& fs, const PythonEnv& e) {
  std::vector<std::string> folders = {e.prefix + "/lib"};
  for (const auto& sp : e.site_packages) {
    size_t n = 0;
    for (const auto& pkg : fs.list(sp)) {
      if (++n > 2000 || ends_with(pkg, ".dist-info") || !fs.is_dir(sp + "/" + pkg)) continue;
      for (const char* sub : {"", "/.dylibs", "/lib", "/.libs"}) folders.push_back(sp + "/" + pkg + sub);
    }
  }
  std::vector<std::string> out, seen;
  for (const auto& dir : folders)
    for (const auto& name : fs.list(dir)) {
      if (!is_openmp(name) || out.size() >= 16) continue;
      std::string path = dir + "/" + name;
      std::string real = fs.resolve(path).value_or(path);
      if (std::find(seen.begin(), seen.end(), real) != seen.end()) continue;
      seen.push_back(real);
      out.push_back(path);
    }
  return out;
}

MacPython read_python(const RootFs& fs, const PythonEnv& e) {
  MacPython p;
  p.prefix = e.prefix;
  p.interpreter = interpreter_of(fs, e);
  if (p.interpreter) {
    auto r = read_macho(fs, *p.interpreter);
    if (r.file) p.cpus = cpu_names(*r.file);
    else p.error = r.error;  // the report names the file
  }
  if (e.kind == "conda") p.conda_subdir = conda_subdir(fs, e.prefix);
  p.externally_managed = externally_managed(fs, e, p.interpreter);
  return p;
}

MacTorchCheck read_torch(const RootFs& fs, const PythonEnv& e, const TorchInstall& t) {
  MacTorchCheck c;
  c.site_packages = t.site_packages;
  // The wheel keeps it in torch/lib; conda-forge's libtorch moves it to <env>/lib.
  for (const auto& lib : {t.site_packages + "/torch/lib/libtorch_cpu.dylib", e.prefix + "/lib/libtorch_cpu.dylib"})
    if (!c.library && fs.exists(lib)) c.library = lib;
  if (!c.library) return c;
  auto r = read_macho(fs, *c.library);
  if (!r.file) {
    c.error = r.error;  // the report names the file
    return c;
  }
  c.cpus = cpu_names(*r.file);
  // The slice the loader would pick on this Mac: arm64 when there is one, else the first.
  const MachOSlice* s = macho_slice(*r.file, kMachOCpuArm64);
  if (!s) s = &r.file->slices.front();
  c.minos = s->minos;
  bool mps = false;
  for (const auto& d : s->weak_dylibs) mps |= d.find("/MetalPerformanceShadersGraph.framework/") != std::string::npos;
  for (const auto& d : s->dylibs) mps |= d.find("/MetalPerformanceShadersGraph.framework/") != std::string::npos;
  c.mps_built = mps;
  return c;
}

}  // namespace

void probe_mac_binaries(const RootFs& fs, const PythonFacts& python, MacosFacts& mac) {
  for (const auto& e : python.envs) {
    mac.pythons.push_back(read_python(fs, e));
    if (e.torch.empty()) continue;
    auto openmp = openmp_runtimes(fs, e);  // the environment's, once however many torches it holds
    for (const auto& t : e.torch) {
      mac.torch.push_back(read_torch(fs, e, t));
      mac.torch.back().openmp = openmp;
    }
  }
}

}  // namespace dlready
