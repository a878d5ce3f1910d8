// Python environments and the PyTorch installed in them, read as plain files (no Python is run):
// torch/version.py, torch-*.dist-info/METADATA, nvidia_*-*.dist-info names.
#include <algorithm>
#include <regex>

#include "core/text.hpp"
#include "probe/probes.hpp"

namespace dlready {
namespace {

// "nvidia_cudnn_cu13" / "nvidia-cudnn-cu13" / "Nvidia.CuDNN-cu13" -> "nvidia-cudnn-cu13" (PEP 503).
std::string normalize_dist_name(std::string_view name) {
  std::string out;
  for (char c : to_lower(name)) {
    bool sep = c == '_' || c == '-' || c == '.';
    if (sep) {
      if (out.empty() || out.back() != '-') out += '-';
    } else {
      out += c;
    }
  }
  return out;
}

// "nvidia_cudnn_cu13-9.13.0.50.dist-info" -> {"nvidia-cudnn-cu13", "9.13.0.50"}
std::optional<std::pair<std::string, std::string>> split_dist_info(const std::string& dir) {
  if (!ends_with(dir, ".dist-info")) return std::nullopt;
  std::string stem = dir.substr(0, dir.size() - 10);
  auto dash = stem.find('-');
  if (dash == std::string::npos) return std::nullopt;
  return std::make_pair(normalize_dist_name(stem.substr(0, dash)), stem.substr(dash + 1));
}

// The interpreter's patch version: a venv's pyvenv.cfg "version = 3.11.7" (or version_info), a
// conda prefix's conda-meta/python-3.11.7-*.json, a pyenv prefix's own name.
std::optional<std::string> full_python_version(const RootFs& fs, const std::string& prefix, const std::string& kind) {
  static const std::regex dotted(R"(^3\.[0-9]+\.[0-9]+)");
  auto version_in = [](const std::string& s) -> std::optional<std::string> {
    std::smatch m;
    if (std::regex_search(s, m, dotted)) return m.str();
    return std::nullopt;
  };
  if (auto cfg = fs.read(prefix + "/pyvenv.cfg", 64 * 1024))
    for (const auto& line : lines(*cfg)) {
      auto eq = line.find('=');
      if (eq == std::string::npos) continue;
      auto key = trim(line.substr(0, eq));
      if (key == "version" || key == "version_info")
        if (auto v = version_in(trim(line.substr(eq + 1)))) return v;
    }
  if (kind == "conda")
    for (const auto& name : fs.list(prefix + "/conda-meta"))
      if (starts_with(name, "python-3.")) return version_in(name.substr(7));
  if (kind == "pyenv") return version_in(path_basename(prefix));
  return std::nullopt;
}

TorchInstall read_torch(const RootFs& fs, const std::string& sp) {
  TorchInstall t;
  t.site_packages = sp;
  if (auto vp = fs.read(sp + "/torch/version.py", 64 * 1024)) {
    t.version_py_found = true;
    t.version = find_assignment(*vp, "__version__");
    auto cuda = find_assignment(*vp, "cuda");
    if (cuda && *cuda != "None") t.cuda = cuda;
  }
  t.has_libtorch_cuda = fs.exists(sp + "/torch/lib/libtorch_cuda.so");
  if (fs.exists(sp + "/torch/include/xnnpack.h")) t.xnnpack = true;  // a build with USE_XNNPACK ships its header
  for (const auto& name : fs.list(sp)) {
    auto d = split_dist_info(name);
    if (!d) continue;
    if (d->first == "torch") {
      ++t.dist_info_count;
      t.dist_version = d->second;
      if (auto meta = fs.read(sp + "/" + name + "/METADATA", 1 << 20)) {
        // Requires-Dist: nvidia-cudnn-cu13==9.13.0.50; platform_system == "Linux"
        static const std::regex pin(R"(^Requires-Dist:\s*(nvidia[-_.A-Za-z0-9]+|cuda-toolkit)(\[[^\]]*\])?\s*==\s*([0-9][0-9A-Za-z.+]*))");
        for (const auto& line : lines(*meta)) {
          std::smatch m;
          if (std::regex_search(line, m, pin)) t.nvidia_pins[normalize_dist_name(m[1].str())] = m[3].str();
        }
      }
    } else if (starts_with(d->first, "nvidia-") || d->first == "cuda-toolkit") {
      t.nvidia_installed[d->first] = d->second;
    }
  }
  if (!t.version) t.version = t.dist_version;
  return t;
}

bool has_torch(const RootFs& fs, const std::string& sp) {
  if (fs.exists(sp + "/torch/version.py") || fs.exists(sp + "/torch/__init__.py")) return true;
  for (const auto& name : fs.list(sp))
    if (starts_with(name, "torch-") && ends_with(name, ".dist-info")) return true;
  return false;
}

struct Candidate {
  std::string prefix;
  std::string kind;
  bool active;
};

// Where Python environments are, in the order Python would be chosen: the active ones, conda's,
// those on PATH, pyenv's, the virtual environments where people keep them, the user's, the system's.
std::vector<Candidate> candidates(const RootFs& fs, const EnvFacts& env) {
  std::vector<Candidate> cands;
  std::string home = env.get("HOME").value_or("/root");
  if (auto v = env.get("VIRTUAL_ENV")) cands.push_back({*v, "venv", true});
  if (auto c = env.get("CONDA_PREFIX")) {
    cands.push_back({*c, "conda", true});
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

}  // namespace

PythonFacts probe_python(const RootFs& fs, const EnvFacts& env) {
  PythonFacts f;
  std::vector<std::string> seen, seen_sp;
  for (const auto& c : candidates(fs, env)) {
    auto real = fs.resolve(c.prefix);
    if (!real || std::find(seen.begin(), seen.end(), *real) != seen.end()) continue;
    seen.push_back(*real);
    PythonEnv pe;
    pe.prefix = c.prefix;
    pe.kind = c.kind;
    pe.active = c.active;
    std::vector<std::string> sps;
    for (const auto& lib : {std::string("/lib"), std::string("/local/lib")}) {
      if (lib == "/local/lib" && c.prefix != "/usr") continue;
      for (const auto& py : fs.list(c.prefix + lib)) {
        if (!starts_with(py, "python3")) continue;
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
    for (const auto& sp : fresh)
      if (has_torch(fs, sp)) pe.torch.push_back(read_torch(fs, sp));
    pe.python_full_version = full_python_version(fs, c.prefix, c.kind);
    if (!pe.torch.empty())
      for (const auto& sp : fresh)
        for (const auto& name : fs.list(sp))
          if (auto d = split_dist_info(name)) pe.distributions.emplace(d->first, d->second);
    f.envs.push_back(pe);
  }
  return f;
}

}  // namespace dlready
