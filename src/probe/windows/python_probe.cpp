// Python environments on Windows and the PyTorch in them, read as files (probe/python_files.hpp:
// the same readers as on Linux): the active venv or conda environment, conda's installs under the
// user's profile and their envs, the Pythons the py launcher knows (the registry's PythonCore), and
// the virtual environments people keep in their profile.
#include <algorithm>

#include "probe/python_files.hpp"
#include "core/text.hpp"
#include "probe/windows/windows_probes.hpp"
#include "platform/platform_record.hpp"

namespace dlready {
namespace {

// What pip's markers read on Windows (the record's words) for a Python of `version`.
MarkerEnvironment windows_markers(const std::string& version) {
  const auto& windows = platform_record(Platform::windows);
  return {std::string(windows.sys_platform), std::string(windows.platform_system), "AMD64", version};
}

struct Candidate {
  std::string prefix, kind;
  bool active = false;
  std::optional<std::string> version;  // X.Y, when the registry says
};

// The py launcher's Pythons: HKCU and HKLM Software\Python\PythonCore\<X.Y>\InstallPath.
void registered_pythons(const WindowsApi& api, std::vector<Candidate>& out) {
  const std::string core = "SOFTWARE\\Python\\PythonCore";
  for (RegistryHive hive : {RegistryHive::current_user, RegistryHive::local_machine})
    for (const auto& tag : api.registry_subkeys(hive, core))
      if (auto path = api.registry_text(hive, core + "\\" + tag + "\\InstallPath", "")) {
        std::string prefix = *path;
        while (!prefix.empty() && (prefix.back() == '\\' || prefix.back() == '/')) prefix.pop_back();
        out.push_back({prefix, "system", false, tag.substr(0, tag.find('-'))});  // "3.12-32" is a 32-bit 3.12
      }
}

std::vector<Candidate> candidates(const WindowsApi& api, const std::map<std::string, std::string>& env) {
  std::vector<Candidate> out;
  auto get = [&](const char* k) { return env.count(k) ? std::optional<std::string>(env.at(k)) : std::nullopt; };
  if (auto v = get("VIRTUAL_ENV")) out.push_back({*v, "venv", true});
  if (auto c = get("CONDA_PREFIX")) out.push_back({*c, "conda", true});
  std::string profile = get("USERPROFILE").value_or("C:\\Users\\Default");
  for (const char* d : {"miniconda3", "anaconda3", "miniforge3"}) {
    std::string base = profile + "\\" + d;
    if (api.list_dir(base).empty()) continue;
    out.push_back({base, "conda", false});
    for (const auto& e : api.list_dir(base + "\\envs")) out.push_back({base + "\\envs\\" + e, "conda", false});
  }
  registered_pythons(api, out);
  for (const char* d : {"venv", ".venv"}) out.push_back({profile + "\\" + d, "venv", false});
  return out;
}

}  // namespace

PythonFacts probe_windows_python(const WindowsApi& api, const std::map<std::string, std::string>& env) {
  PythonFacts f;
  FileSource fs = windows_files(api);
  std::vector<std::string> seen;
  for (const auto& c : candidates(api, env)) {
    std::string key = to_lower(c.prefix);
    std::string sp = c.prefix + "\\Lib\\site-packages";
    if (std::find(seen.begin(), seen.end(), key) != seen.end() || !fs.exists(sp)) continue;
    seen.push_back(key);
    PythonEnv e;
    e.prefix = c.prefix;
    e.kind = c.kind;
    e.active = c.active;
    e.site_packages = {sp};
    e.python_full_version = pyvenv_python_version(fs, c.prefix);
    e.python_version = c.version;
    if (!e.python_version && e.python_full_version)
      e.python_version = e.python_full_version->substr(0, e.python_full_version->rfind('.'));
    if (has_torch(fs, sp))
      e.torch.push_back(read_torch_install(fs, sp, "torch_cuda.dll", windows_markers(e.python_version.value_or(""))));
    // As on Linux: the distributions beside a torch (numpy's version for torch-needs-numpy1), and
    // what conda installed (its CPU build is fixed with conda, not pip).
    if (!e.torch.empty()) {
      for (const auto& name : fs.list(sp))
        if (auto d = split_dist_info(name)) e.distributions.emplace(d->first, d->second);
      if (c.kind == "conda") e.conda_packages = read_conda_packages(fs, c.prefix);
    }
    f.envs.push_back(std::move(e));
  }
  return f;
}

}  // namespace dlready
