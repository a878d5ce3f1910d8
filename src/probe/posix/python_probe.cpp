// Python environments and the PyTorch installed in them, read as plain files (no Python is run):
// torch/version.py, torch-*.dist-info/METADATA, nvidia_*-*.dist-info names.
#include <algorithm>
#include "probe/python_files.hpp"
#include "core/scan.hpp"
#include "core/text.hpp"
#include "core/path_text.hpp"
#include "os/posix_fs.hpp"
#include "probe/posix/posix_probes.hpp"

namespace dlready {
namespace {

// This root's files as the shared readers take them.
FileSource root_files(const RootFs& fs) {
  return {[&fs](const std::string& p, size_t limit) { return fs.read(p, limit); },
          [&fs](const std::string& p) { return fs.exists(p); }, [&fs](const std::string& p) { return fs.list(p); }};
}

// The interpreter's patch version: a venv's pyvenv.cfg "version = 3.11.7" (or version_info), a
// conda prefix's conda-meta/python-3.11.7-*.json, a pyenv prefix's own name.
std::optional<std::string> full_python_version(const RootFs& fs, const std::string& prefix, const std::string& kind,
                                               const std::optional<std::string>& pyvenv_cfg) {
  auto version_in = [](const std::string& s) -> std::optional<std::string> {
    if (auto v = leading_python_version(s); !v.empty()) return std::string(v);
    return std::nullopt;
  };
  if (auto v = pyvenv_cfg ? pyvenv_python_version_in(*pyvenv_cfg) : std::nullopt) return v;
  if (kind == "conda")
    for (const auto& name : fs.list(prefix + "/conda-meta"))
      if (starts_with(name, "python-3.")) return version_in(name.substr(7));
  if (kind == "pyenv") return version_in(path_basename(prefix));
  return std::nullopt;
}

struct Candidate {
  std::string prefix;
  std::string kind;
  bool active;
  std::optional<std::string> active_by = std::nullopt;
};

struct PyenvChoice {
  std::string prefix;  // <pyenv root>/versions/<version>
  std::string via;     // "pyenv: PYENV_VERSION", "pyenv: <dir>/.python-version", "pyenv: <root>/version"
};

// The first version named by pyenv's version text ("3.11.7 3.10.13", one per line or space).
std::optional<std::string> first_pyenv_version(const std::string& text) {
  for (const auto& line : lines(text))
    for (const auto& word : split(trim(line), ' '))
      if (!word.empty() && word[0] != '#') return word;
  return std::nullopt;
}

// The version a pyenv shim runs, as pyenv chooses it (`pyenv version-name`): PYENV_VERSION, else
// the nearest .python-version from the working folder up (read on this machine only: a capture
// records no working folder), else <root>/version; nullopt for "system" or when none is set.
std::optional<PyenvChoice> pyenv_choice(const RootFs& fs, const EnvFacts& env, const std::string& root) {
  std::optional<std::string> version;
  std::string via;
  if (auto v = env.get("PYENV_VERSION")) version = first_pyenv_version(*v), via = "PYENV_VERSION";
  if (!version && fs.is_host_root()) {
    std::string dir = current_directory();
    for (int depth = 0; !version && !dir.empty() && depth < 64; ++depth) {
      if (auto text = fs.read(path_join(dir, ".python-version"), 64 * 1024)) version = first_pyenv_version(*text), via = path_join(dir, ".python-version");
      if (dir == "/") break;
      dir = path_dirname(dir);
    }
  }
  if (!version)
    if (auto text = fs.read(root + "/version", 64 * 1024)) version = first_pyenv_version(*text), via = root + "/version";
  if (!version || *version == "system" || version->find('/') != std::string::npos) return std::nullopt;
  return PyenvChoice{root + "/versions/" + *version, "pyenv: " + via};
}

// pyenv's root when `dir` (a PATH folder) is its shims folder.
std::optional<std::string> pyenv_root_of_shims(const RootFs& fs, const std::string& dir) {
  if (path_basename(dir) != "shims" || !fs.is_dir(path_dirname(dir) + "/versions")) return std::nullopt;
  return path_dirname(dir);
}

// Where Python environments are, in the order Python would be chosen: the active ones, conda's,
// those on PATH, pyenv's, the virtual environments where people keep them, the user's, the system's.
// `shell`: what the shell's `python` runs (python_on_path), read once.
std::vector<Candidate> candidates(const RootFs& fs, const EnvFacts& env, const PythonFacts& shell) {
  std::vector<Candidate> cands;
  std::string home = env.get("HOME").value_or("/root");
  // `python -m dlready` names the interpreter that started it: <prefix>/bin/python.
  if (auto py = env.get("DLREADY_PARENT_PYTHON"); py && path_basename(path_dirname(*py)) == "bin") {
    std::string prefix = path_dirname(path_dirname(*py));
    cands.push_back({prefix, fs.exists(prefix + "/pyvenv.cfg") ? "venv" : fs.exists(prefix + "/conda-meta") ? "conda" : "system",
                     true, "python -m dlready"});
  }
  if (auto v = env.get("VIRTUAL_ENV")) cands.push_back({*v, "venv", true, "VIRTUAL_ENV"});
  // No environment activated: the Python the shell runs is the one a pyenv shim first on PATH chooses.
  if (cands.empty() && !env.get("CONDA_PREFIX") && shell.python_on_path_via && shell.python_on_path_prefix)
    cands.push_back({*shell.python_on_path_prefix, "pyenv", true, shell.python_on_path_via});
  if (auto c = env.get("CONDA_PREFIX")) {
    cands.push_back({*c, "conda", true, "CONDA_PREFIX"});
    // Sibling envs: <base>/envs/* whether the active one is base or one of them.
    std::string base = path_basename(path_dirname(*c)) == "envs" ? path_dirname(path_dirname(*c)) : *c;
    if (base != *c) cands.push_back({base, "conda", false});
    for (const auto& e : fs.list(base + "/envs")) cands.push_back({base + "/envs/" + e, "conda", false});
  }
  for (const char* d : {"miniconda3", "anaconda3", "miniforge3", "mambaforge"}) {
    std::string base = home + "/" + d;
    if (!fs.is_dir(base)) continue;
    cands.push_back({base, "conda", false});
    for (const auto& e : fs.list(base + "/envs")) cands.push_back({base + "/envs/" + e, "conda", false});
  }
  for (const auto& dir : split(env.get("PATH").value_or("/usr/local/bin:/usr/bin:/bin"), ':')) {
    if (!fs.exists(dir + "/python3") && !fs.exists(dir + "/python")) continue;
    if (path_basename(dir) != "bin") continue;
    std::string prefix = path_dirname(dir);
    bool is_venv = fs.exists(prefix + "/pyvenv.cfg");
    cands.push_back({prefix, is_venv ? "venv" : fs.exists(prefix + "/conda-meta") ? "conda" : "system", false});
  }
  for (const auto& v : fs.list(home + "/.pyenv/versions")) cands.push_back({home + "/.pyenv/versions/" + v, "pyenv", false});
  // Virtual environments where people and tools keep them, found whether or not one is active: a
  // snapshot taken with the venv activated and one without describe the same machine.
  for (const char* d : {"venv", ".venv"})
    if (fs.exists(home + "/" + d + "/pyvenv.cfg")) cands.push_back({home + "/" + d, "venv", false});
  for (const char* d : {"venvs", ".venvs", ".virtualenvs", ".cache/dlready"})  // dlready setup's, its build's own
    for (const auto& e : fs.list(home + "/" + d))
      if (fs.exists(home + "/" + d + "/" + e + "/pyvenv.cfg")) cands.push_back({home + "/" + d + "/" + e, "venv", false});
  cands.push_back({home + "/.local", "user", false});
  cands.push_back({"/usr", "system", false});
  return cands;
}

// pyvenv.cfg's include-system-site-packages = true: the venv imports its base's packages too.
bool includes_system_site_packages(const std::optional<std::string>& pyvenv_cfg) {
  if (!pyvenv_cfg) return false;
  return to_lower(pyvenv_setting_in(*pyvenv_cfg, "include-system-site-packages").value_or("")) == "true";
}

}  // namespace

namespace {

// The `python` a shell runs: the first PATH folder holding `python` (else the first holding
// `python3`, which is what `python` means on distributions without the unversioned name).
void python_on_path(const RootFs& fs, const EnvFacts& env, PythonFacts& f) {
  for (const char* name : {"python", "python3"}) {
    for (const auto& dir : split(env.get("PATH").value_or("/usr/local/bin:/usr/bin:/bin"), ':')) {
      if (dir.empty() || dir[0] != '/' || !fs.exists(dir + "/" + name)) continue;
      f.python_on_path = dir + "/" + name;
      if (path_basename(dir) == "bin") f.python_on_path_prefix = path_dirname(dir);
      if (auto root = pyenv_root_of_shims(fs, dir))
        if (auto choice = pyenv_choice(fs, env, *root)) f.python_on_path_prefix = choice->prefix, f.python_on_path_via = choice->via;
      return;
    }
  }
}

}  // namespace

PythonFacts probe_python(const RootFs& fs, const EnvFacts& env, const std::optional<std::string>& own_prefix,
                         const MarkerEnvironment& machine) {
  PythonFacts f;
  python_on_path(fs, env, f);
  std::vector<std::string> seen, seen_sp, seen_lib;
  std::optional<std::string> own = own_prefix ? fs.resolve(*own_prefix) : std::nullopt;
  for (const auto& c : candidates(fs, env, f)) {
    auto real = fs.resolve(c.prefix);
    if (!real || std::find(seen.begin(), seen.end(), *real) != seen.end()) continue;
    seen.push_back(*real);
    const bool tools_own = own && *real == *own && !c.active;
    PythonEnv pe;
    pe.prefix = c.prefix;
    pe.kind = c.kind;
    pe.active = c.active;
    pe.active_by = c.active_by;
    const auto pyvenv_cfg = fs.read(c.prefix + "/pyvenv.cfg", 64 * 1024);  // once for every setting
    pe.system_site_packages = includes_system_site_packages(pyvenv_cfg);
    std::vector<std::string> sps;
    for (const auto& lib : {std::string("/lib"), std::string("/local/lib")}) {
      if (lib == "/local/lib" && c.prefix != "/usr") continue;
      // One folder under two names is looked into once: on a merged-/usr system PATH's /bin makes
      // the prefix /, whose lib is /usr/lib (68 names here); every site-packages in it resolves to
      // one already seen.
      auto real_lib = fs.resolve(c.prefix + lib);
      if (!real_lib || std::find(seen_lib.begin(), seen_lib.end(), *real_lib) != seen_lib.end()) continue;
      seen_lib.push_back(*real_lib);
      for (const auto& py : fs.list(c.prefix + lib)) {
        // python3.11, and python2.7 too: an old environment with an old torch is still one the user runs.
        if (!starts_with(py, "python3") && !starts_with(py, "python2")) continue;
        if (!pe.python_version && py.size() > 6) pe.python_version = py.substr(6);
        for (const char* sub : {"site-packages", "dist-packages"}) {
          std::string sp = c.prefix + lib + "/" + py + "/" + sub;
          if (fs.is_dir(sp)) sps.push_back(sp);
        }
      }
    }
    if (c.prefix == "/usr" && fs.is_dir("/usr/lib/python3/dist-packages")) sps.push_back("/usr/lib/python3/dist-packages");
    // The same directory reached through two prefixes (/bin -> /usr/bin) counts once.
    std::vector<std::string> fresh;
    for (const auto& sp : sps) {
      auto r = fs.resolve(sp).value_or(sp);
      if (std::find(seen_sp.begin(), seen_sp.end(), r) != seen_sp.end()) continue;
      seen_sp.push_back(r);
      fresh.push_back(sp);
    }
    if (fresh.empty()) continue;
    pe.site_packages = fresh;
    MarkerEnvironment here = machine;
    here.python_version = pe.python_version.value_or("");
    for (const auto& sp : fresh)
      if (has_torch(root_files(fs), sp)) pe.torch.push_back(read_torch_install(root_files(fs), sp, "libtorch_cuda.so", here));
    if (tools_own && pe.torch.empty()) continue;  // uvx's or pipx's environment for dlready itself
    pe.python_full_version = full_python_version(fs, c.prefix, c.kind, pyvenv_cfg);
    if (c.kind == "conda" && !pe.torch.empty()) pe.conda_packages = read_conda_packages(root_files(fs), c.prefix);
    if (!pe.torch.empty())
      for (const auto& sp : fresh)
        for (const auto& name : fs.list(sp))
          if (auto d = split_dist_info(name)) pe.distributions.emplace(d->first, d->second);
    f.envs.push_back(pe);
  }
  return f;
}

}  // namespace dlready
