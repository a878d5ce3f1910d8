// Why `import torch` fails with `OSError: [WinError 126] ... Error loading "...\torch\lib\c10.dll" or
// one of its dependencies`, read as files. On Windows torch's __init__.py adds its folders with
// os.add_dll_directory and loads every DLL in torch\lib with LoadLibraryExW(LOAD_LIBRARY_SEARCH_
// DEFAULT_DIRS | LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR); when that fails it tries LoadLibraryW with those
// folders first on PATH. So a DLL's import is found in the first of: the DLL's own folder, the
// program's (python.exe's) folder, torch's added folders, System32, the Windows folder, PATH —
// after Windows' known DLLs, found before any folder. The imports of every DLL found outside
// Windows' own folders are followed the same way.
#include <deque>
#include <map>
#include <optional>
#include <set>

#include "probe/python_files.hpp"
#include "core/text.hpp"
#include "binfmt/pe_image.hpp"
#include "probe/windows/windows_probes.hpp"

namespace dlready {
namespace {

constexpr size_t kMaxDlls = 512;  // torch 2.x's torch\lib holds about 60; its CUDA DLLs a few more

// Windows' "known DLLs" are found before any folder is searched (Microsoft's "Search Path Used by
// Windows to Locate a DLL"): the values of HKLM\...\Session Manager\KnownDLLs, and ntdll.dll,
// which every process has. Windows 10's list stands in when the key cannot be read (a capture
// that did not record it).
std::set<std::string> known_dlls(const WindowsApi& api) {
  std::set<std::string> known = {"ntdll.dll"};
  for (const auto& [name, dll] :
       api.registry_text_values(RegistryHive::local_machine, "SYSTEM\\CurrentControlSet\\Control\\Session Manager\\KnownDLLs"))
    known.insert(to_lower(dll));
  if (known.size() == 1)
    for (const char* dll : {"advapi32.dll", "clbcatq.dll", "combase.dll", "comdlg32.dll", "coml2.dll", "gdi32.dll",
                            "gdiplus.dll", "imagehlp.dll", "imm32.dll", "kernel32.dll", "msctf.dll", "msvcrt.dll",
                            "normaliz.dll", "nsi.dll", "ole32.dll", "oleaut32.dll", "psapi.dll", "rpcrt4.dll",
                            "sechost.dll", "setupapi.dll", "shcore.dll", "shell32.dll", "shlwapi.dll", "user32.dll",
                            "wldap32.dll", "ws2_32.dll"})
      known.insert(dll);
  return known;
}

// Each folder's file names (lower case), read once for every PyTorch found (System32 and PATH's
// folders are searched for each); nullopt for a folder that is not there.
using Listings = std::map<std::string, std::optional<std::set<std::string>>>;

struct Folder {
  std::string path;
  bool windows_own = false;  // System32 and the Windows folder: their imports are Windows' business
  const std::set<std::string>* names = nullptr;  // in the Listings; none for a network folder
};

std::string env_or(const std::map<std::string, std::string>& env, const char* name, const std::string& fallback) {
  auto it = env.find(name);
  return it != env.end() && !it->second.empty() ? it->second : fallback;
}

// The python.exe the process runs: a venv's Scripts\python.exe starts the Python its pyvenv.cfg
// names (`home`), so that Python's folder is the program's folder.
std::string python_home(const WindowsApi& api, const PythonEnv& e) {
  auto home = pyvenv_setting(windows_files(api), e.prefix, "home");
  return home ? *home : e.prefix;
}

bool any_named(const std::vector<Folder>& folders, const std::string& prefix, const std::string& suffix) {
  for (const auto& f : folders)
    if (f.names)
      for (const auto& n : *f.names)
        if (starts_with(n, prefix) && ends_with(n, suffix)) return true;
  return false;
}

// torch's added folders (its _load_dll_libraries): Library\bin of the environment and of its base
// Python, the user base's Library\bin, the environment's bin; NVIDIA's NvToolsExt and the CUDA
// toolkit of torch's CUDA version when no folder before has their DLLs.
std::vector<std::string> added_folders(const PythonEnv& e, const TorchInstall& t, const std::string& home,
                                       const std::vector<Folder>& so_far, const std::map<std::string, std::string>& env) {
  std::vector<std::string> dirs = {e.prefix + "\\Library\\bin"};
  if (to_lower(home) != to_lower(e.prefix)) dirs.push_back(home + "\\Library\\bin");
  if (env.count("APPDATA")) dirs.push_back(env.at("APPDATA") + "\\Python\\Library\\bin");
  dirs.push_back(e.prefix + "\\bin");
  std::string program_files = env_or(env, "ProgramFiles", "C:\\Program Files");
  if (!any_named(so_far, "nvtoolsext64_1.dll", ""))
    dirs.push_back(env_or(env, "NVTOOLSEXT_PATH", program_files + "\\NVIDIA Corporation\\NvToolsExt") + "\\bin\\x64");
  if (t.cuda && !any_named(so_far, "cudart64", ".dll")) {
    std::string v = *t.cuda;
    std::string underscored = v;
    for (auto& c : underscored) c = c == '.' ? '_' : c;
    dirs.push_back(env_or(env, ("CUDA_PATH_V" + underscored).c_str(),
                          program_files + "\\NVIDIA GPU Computing Toolkit\\CUDA\\v" + v) + "\\bin");
  }
  return dirs;
}

void add_folder(const WindowsApi& api, std::vector<Folder>& folders, Listings& listings, const std::string& path,
                bool windows_own) {
  if (path.empty()) return;
  const std::string key = to_lower(path);
  for (const auto& f : folders)
    if (to_lower(f.path) == key) return;
  if (api.on_network(path)) {  // searched by the loader, not read here: named as such, holding nothing
    folders.push_back({path + " (a network folder: not read)", false, nullptr});
    return;
  }
  auto [at, fresh] = listings.try_emplace(key);
  if (fresh) {
    auto names = api.list_dir(path);
    if (!names.empty() || api.path_exists(path)) {
      at->second.emplace();
      for (const auto& n : names) at->second->insert(to_lower(n));
    }
  }
  if (at->second) folders.push_back({path, windows_own, &*at->second});
}

std::vector<Folder> search_folders(const WindowsApi& api, const PythonEnv& e, const TorchInstall& t, const std::string& torch_lib,
                                   const std::string& home, const std::map<std::string, std::string>& env,
                                   Listings& listings) {
  std::vector<Folder> folders;
  add_folder(api, folders, listings, torch_lib, false);
  add_folder(api, folders, listings, home, false);
  add_folder(api, folders, listings, e.prefix + "\\Library\\bin", false);
  for (const auto& dir : added_folders(e, t, home, folders, env)) add_folder(api, folders, listings, dir, false);
  add_folder(api, folders, listings, api.system_directory(), true);
  add_folder(api, folders, listings, api.windows_directory(), true);
  for (const auto& dir : split(env_or(env, "PATH", env_or(env, "Path", "")), ';'))
    add_folder(api, folders, listings, trim(dir), false);
  return folders;
}

const Folder* holder(const std::vector<Folder>& folders, const std::string& lower_name) {
  for (const auto& f : folders)
    if (f.names && f.names->count(lower_name)) return &f;
  return nullptr;
}

// Every DLL in torch\lib and, through their imports, every DLL they bring in from outside Windows'
// folders; API sets (api-ms-*, ext-ms-*) are the loader's own names, not files.
void follow_imports(const WindowsApi& api, TorchDllCheck& check, const std::vector<Folder>& folders,
                    const std::set<std::string>& known) {
  struct Load { std::string path, root; };
  std::deque<Load> todo;
  std::set<std::string> seen;  // lower-case file names already placed
  for (const auto& n : api.list_dir(check.torch_lib))
    if (ends_with(to_lower(n), ".dll")) todo.push_back({check.torch_lib + "\\" + n, n}), seen.insert(to_lower(n));
  while (!todo.empty() && static_cast<size_t>(check.dlls_read) < kMaxDlls) {
    Load load = todo.front();
    todo.pop_front();
    ++check.dlls_read;
    auto pe = parse_pe(api.file_ranges(load.path));
    if (!pe.image) {
      check.unreadable.push_back(load.path + ": " + pe.error);
      continue;
    }
    // torch's machine is c10.dll's (every torch DLL is built for one); else the first DLL's.
    if (!check.torch_machine || to_lower(load.path.substr(load.path.find_last_of('\\') + 1)) == "c10.dll")
      check.torch_machine = pe_machine_name(pe.image->machine);
    for (const auto& name : pe.image->imports) {
      std::string lower = to_lower(name);
      if (starts_with(lower, "api-ms-") || starts_with(lower, "ext-ms-") || known.count(lower) || !seen.insert(lower).second)
        continue;
      const Folder* f = holder(folders, lower);
      if (!f) check.missing.push_back({name, load.path, check.torch_lib + "\\" + load.root});
      else if (!f->windows_own) todo.push_back({f->path + "\\" + name, load.root});
    }
  }
}

}  // namespace

std::vector<TorchDllCheck> probe_torch_dlls(const WindowsApi& api, const PythonFacts& python, const std::map<std::string, std::string>& env) {
  std::vector<TorchDllCheck> out;
  Listings listings;
  std::set<std::string> known;
  for (const auto& e : python.envs)
    for (const auto& t : e.torch) {
      TorchDllCheck check;
      check.torch_lib = t.site_packages + "\\torch\\lib";
      if (!api.path_exists(check.torch_lib)) continue;
      std::string home = python_home(api, e);
      auto folders = search_folders(api, e, t, check.torch_lib, home, env, listings);
      for (const auto& f : folders) check.search_path.push_back(f.path);
      std::string exe = home + "\\python.exe";
      if (api.is_file(exe)) {
        check.python_exe = exe;
        if (auto pe = parse_pe(api.file_ranges(exe)); pe.image) check.python_machine = pe_machine_name(pe.image->machine);
      }
      if (known.empty()) known = known_dlls(api);
      follow_imports(api, check, folders, known);
      out.push_back(std::move(check));
    }
  return out;
}

}  // namespace dlready
