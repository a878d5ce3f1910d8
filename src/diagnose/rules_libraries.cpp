// Rules about dynamic-library resolution (the ld.so simulation of probe/ld_resolver).
#include <algorithm>
#include <map>

#include "core/path_text.hpp"
#include "core/text.hpp"
#include "diagnose/catalogue.hpp"
#include "compat/compat.hpp"
#include "diagnose/gpu_code.hpp"
#include "diagnose/rules.hpp"

namespace dlready {
namespace {

bool is_cuda_family(const std::string& name) {
  for (const char* p : {"libcu", "libnv", "libnccl", "libtorch", "libc10", "libcaffe2"})
    if (starts_with(name, p)) return true;
  return false;
}

// The pip wheel that ships a CUDA library in PyTorch's layout (site-packages/nvidia/<dir>/lib).
std::string wheel_hint(const std::string& name) {
  if (starts_with(name, "libcudnn")) return "nvidia-cudnn-cu13 (or -cu12 for a CUDA 12 torch)";
  if (starts_with(name, "libnccl")) return "nvidia-nccl-cu13 (or -cu12)";
  if (starts_with(name, "libcusparseLt")) return "nvidia-cusparselt-cu13 (or -cu12)";
  return "the cuda-toolkit / nvidia-*-cu12 wheels torch pins (see torch-cuda-wheel-missing)";
}

}  // namespace

namespace {

Finding ptx_jit_finding(const Facts& f, const Derived& d, const std::string& torch, const std::vector<std::string>& jit) {
  auto x = make_finding("ptx-jit-only");
  x.evidence = jit;
  x.evidence.push_back("torch " + torch + " has no SASS for it: the first run compiles every kernel (minutes)");
  for (const char* var : {"CUDA_CACHE_DISABLE", "CUDA_CACHE_MAXSIZE", "CUDA_CACHE_PATH"})
    if (auto v = f.env.get(var)) x.evidence.push_back(std::string(var) + "=" + *v + " (the driver's JIT cache)");
  x.fix = {pip_install_command_for(f, d, "a build with SASS for this GPU"),
           "until then keep the JIT cache: unset CUDA_CACHE_DISABLE; export CUDA_CACHE_MAXSIZE=4294967296 (4 GiB, the "
           "largest); the first run after each driver change compiles again"};
  return x;
}

void arch_rules(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  for (const auto& env : f.python.envs) {
    for (const auto& t : env.torch) {
      if (!t.cuda || !t.version) continue;
      std::string lib = t.site_packages + "/torch/lib/libtorch_cuda.so";
      const GpuCode* scanned = nullptr;
      for (const auto& g : f.gpu_code)
        if (g.library == lib) scanned = &g;
      auto published = known_arch_list(*t.version, *t.cuda, d.machine);
      std::vector<std::string> bad, jit;
      std::string has;
      for (const auto& g : d.gpu_archs) {
        bool ok;
        if (scanned && !(scanned->sass.empty() && scanned->ptx.empty())) {
          auto on = gpu_code_on(*scanned, g.major, g.minor);
          ok = on.runs;
          // A GPU older than every kernel the build ships (torch warns "PyTorch no longer supports
          // this GPU because it is too old"): a stray PTX of an older architecture in the library
          // is not torch's kernels, so it does not make the GPU usable.
          if (ok && starts_with(on.how, "PTX") && !scanned->sass.empty() &&
              g.major * 10 + g.minor < *std::min_element(scanned->sass.begin(), scanned->sass.end()))
            ok = false;
          if (ok && starts_with(on.how, "PTX")) jit.push_back(g.label + " (" + on.arch + ") runs it through " + on.how);
          has = arch_text(scanned->sass, "sm_") + (scanned->ptx.empty() ? "" : " " + arch_text(scanned->ptx, "compute_")) +
                " (read from " + lib + ")";
        } else if (published) {
          ok = arch_list_covers(*published, g.major, g.minor);
          has = *published + " (the release's published TORCH_CUDA_ARCH_LIST)";
        } else {
          continue;
        }
        if (!ok)
          bad.push_back(g.label + " is sm_" + std::to_string(g.major) + std::to_string(g.minor) +
                        (g.source == "driver" ? "" : " (compute capability from the " + g.source + ")"));
      }
      if (!jit.empty()) out.push_back(ptx_jit_finding(f, d, *t.version, jit));
      if (bad.empty()) continue;
      if (orin_on_sbsa(f) && (scanned ? gpu_code_on(*scanned, 8, 0).runs : published && arch_list_covers(*published, 8, 0))) {
        auto x = make_finding("orin-jetpack7-code-unverified");
        x.evidence = {"an Orin (8.7) on L4T " + f.arm->l4t_release.value_or("?") + " (JetPack 7.2: Orin runs SBSA wheels)",
                      "torch " + *t.version + " in " + t.site_packages + " has: " + has + ", no sm_87"};
        x.fix = {"dlready cannot be sure: torch's own table says 8.0 code does not run on 8.7, one public log says it does "
                 "under JetPack 7.2; check: python3 -c 'import torch; print(torch.ones(1, device=\"cuda\") + 1)'",
                 "if that fails with \"no kernel image\": install a Jetson AI Lab build for this JetPack (jp7 index)"};
        out.push_back(x);
        continue;
      }
      auto x = make_finding("arch-not-supported");
      x.evidence = bad;
      x.evidence.push_back("torch " + *t.version + " in " + t.site_packages + " has: " + has);
      x.fix = {"pip uninstall -y torch torchvision", pip_install_command_for(f, d, "a build with code for this GPU")};
      out.push_back(x);
    }
  }
}

Finding missing_version_finding(const Resolution& b, const std::vector<const MissingVersion*>& versions) {
  auto x = make_finding("symbol-version-missing");
  for (const auto* m : versions) {
    if (x.evidence.size() == 6) break;
    x.evidence.push_back(m->library + ": version `" + m->version + "' not found (required by " + m->required_by + ")");
  }
  const auto& first = *versions.front();
  std::string via;
  for (const auto& l : b.libraries)
    if (l.path && *l.path == first.library) via = l.via;
  if (!via.empty()) x.evidence.push_back(first.library + " was found through " + via);
  std::string dir = path_dirname(first.library);
  if (starts_with(first.version, "GLIBCXX_") || starts_with(first.version, "CXXABI_"))
    x.fix = {"an older libstdc++ comes first: take " + dir + " out of LD_LIBRARY_PATH so the system's is used",
             "or, in a conda env, update its C++ runtime: conda install -c conda-forge 'libstdcxx-ng>=13'"};
  else if (starts_with(first.version, "GLIBC_"))
    x.fix = {"the program was built for a newer glibc than this system's: install a build for this OS release, "
             "or run it in a container of a newer one"};
  else
    x.fix = {"an older copy of " + path_basename(first.library) + " comes first: take " + dir +
                 " out of LD_LIBRARY_PATH (or remove that copy)",
             "or bring the wheel that provides it to the version torch pins: pip install --force-reinstall " +
                 wheel_hint(path_basename(first.library))};
  return x;
}

// "path (via) [version]" of ResolvedLibrary::later_copies, split.
struct LaterCopy {
  std::string path, via, version;
};
LaterCopy parse_later_copy(const std::string& text) {
  LaterCopy c;
  auto open = text.find(" (");
  auto close = text.find(')', open == std::string::npos ? 0 : open);
  c.path = text.substr(0, open);
  if (open != std::string::npos && close != std::string::npos) c.via = text.substr(open + 2, close - open - 2);
  auto bracket = text.find(" [", close == std::string::npos ? 0 : close);
  if (bracket != std::string::npos && ends_with(text, "]")) c.version = text.substr(bracket + 2, text.size() - bracket - 3);
  return c;
}

// The PyTorch whose site-packages hold `path` (a library of its nvidia-* wheels or torch/lib).
const TorchInstall* torch_holding(const Facts& f, const std::string& path) {
  for (const auto& e : f.python.envs)
    for (const auto& t : e.torch)
      if (!t.site_packages.empty() && starts_with(path, t.site_packages + "/")) return &t;
  return nullptr;
}

// The nvidia-* wheel a library of site-packages/nvidia/<component>/lib belongs to, as torch's
// metadata names it (nvidia-nvjitlink-cu12); "" when it is not one of them.
std::optional<std::string> wheel_of(const TorchInstall* t, const std::string& path) {
  auto at = path.find("/site-packages/nvidia/");
  if (!t || at == std::string::npos) return std::nullopt;
  std::string component = path.substr(at + 22, path.find('/', at + 22) - (at + 22));
  for (const auto* names : {&t->nvidia_installed, &t->nvidia_pins})
    for (const auto& [name, version] : *names)
      if (starts_with(name, "nvidia-" + to_lower(component) + "-cu")) return name;
  return std::nullopt;
}

// A library's own version: its wheel's dist-info where it is one, else its real file name's.
std::string real_version(const Facts& f, const Resolution& b, const std::string& path) {
  const TorchInstall* t = torch_holding(f, path);
  if (auto wheel = wheel_of(t, path)) {
    auto it = t->nvidia_installed.find(*wheel);
    if (it != t->nvidia_installed.end()) return *wheel + " " + it->second;
  }
  for (const auto& l : b.libraries)
    if (l.path && *l.path == path && l.version) return *l.version + " (its file name)";
  return "version unknown";
}

// The conda environment whose lib/ holds `path`, and the conda package that put a library there:
// conda's CUDA packages are named for the library (libnvjitlink, libcusparse, libcublas), the
// runtime's is cuda-cudart.
const PythonEnv* conda_env_holding(const Facts& f, const std::string& path) {
  for (const auto& e : f.python.envs)
    if (!e.conda_packages.empty() && starts_with(path, e.prefix + "/")) return &e;
  return nullptr;
}

const CondaPackage* conda_package_of(const PythonEnv& e, const std::string& library) {
  std::string stem = to_lower(path_basename(library));
  stem = stem.substr(0, stem.find(".so"));
  for (const auto& c : e.conda_packages)
    if (c.name == stem || c.name == "cuda-" + stem.substr(stem.rfind("lib", 0) == 0 ? 3 : 0)) return &c;
  return nullptr;
}

// In a conda environment the fix is conda's: pip's wheels would put a second copy beside conda's.
bool conda_symbol_fix(const Facts& f, const MissingVersion& m, Finding& x) {
  const PythonEnv* env = conda_env_holding(f, m.library);
  if (!env) return false;
  const CondaPackage* provider = conda_package_of(*env, m.library);
  const CondaPackage* dependent = conda_package_of(*env, m.required_by);
  if (!provider) return false;
  x.evidence.push_back("conda: " + provider->name + " " + provider->version + " " + provider->build +
                       (provider->channel.empty() ? "" : " (" + provider->channel + ")") + " provides " + path_basename(m.library));
  std::string need;
  if (dependent) {
    x.evidence.push_back("conda: " + dependent->name + " " + dependent->version +
                         (dependent->channel.empty() ? "" : " (" + dependent->channel + ")") + " needs it");
    auto parts = split(dependent->version, '.');
    if (parts.size() >= 2) need = parts[0] + "." + parts[1];
  }
  x.fix.push_back("conda install -p " + env->prefix + " -c nvidia \"" + provider->name +
                  (need.empty() ? "" : ">=" + need) + "\" (the version the other CUDA libraries of the environment were built with)");
  x.fix.push_back("or pin the environment's CUDA libraries to one release: conda install -p " + env->prefix +
                  " -c nvidia cuda-libraries=" + (need.empty() ? std::string("<torch's CUDA>") : need));
  return true;
}

// The copy at `path` lacks a symbol a library of this closure binds (library-symbol-missing).
bool lacks_symbols(const Resolution& b, const std::string& path) {
  for (const auto& m : b.missing_versions)
    if (!m.symbol.empty() && m.library == path) return true;
  return false;
}

// "undefined symbol: X, version V": the copy the loader picks defines V but not X (issue 59 item 1).
Finding missing_symbol_finding(const Facts& f, const Resolution& b, const std::vector<const MissingVersion*>& missing) {
  auto x = make_finding("library-symbol-missing");
  const MissingVersion& first = *missing.front();
  for (const auto* m : missing)
    if (x.evidence.size() < 4)
      x.evidence.push_back(m->required_by + ": undefined symbol: " + m->symbol + ", version " + m->version);
  const ResolvedLibrary* picked = nullptr;
  for (const auto& l : b.libraries)
    if (l.path && *l.path == first.library) picked = &l;
  x.evidence.push_back("the loader picks " + first.library + (picked ? " (" + picked->via + ")" : "") + ": " +
                       real_version(f, b, first.library) + ", which lacks it");
  x.evidence.push_back(first.required_by + ": " + real_version(f, b, first.required_by));
  if (picked)
    for (const auto& text : picked->later_copies) {
      auto c = parse_later_copy(text);
      std::string version = real_version(f, b, c.path);
      if (version == "version unknown" && !c.version.empty()) version = c.version + " (its file name)";
      if (x.evidence.size() < 9) x.evidence.push_back("another copy: " + c.path + " (" + c.via + "): " + version);
    }
  const TorchInstall* t = torch_holding(f, first.required_by);
  if (!(picked && picked->via == "LD_LIBRARY_PATH") && conda_symbol_fix(f, first, x)) return x;
  if (picked && picked->via == "LD_LIBRARY_PATH") {
    x.fix.push_back(drop_from_ld_library_path(f, path_dirname(first.library)) +
                    " (and where it is set: ~/.bashrc, a module file, a conda activate script)");
  } else if (!picked || picked->via != "RPATH") {
    x.fix.push_back("the loader takes " + first.library + (picked ? " through " + picked->via : "") +
                    ": remove that copy or bring it to the version " + path_basename(first.required_by) + " was built with");
  }
  // The wheels to bring back to torch's pins: the dependent's, the picked copy's, and the wheel
  // copy of that library further down the loader's order (the one that would define the symbol).
  std::vector<std::string> pins, wheel_paths = {first.library, first.required_by};
  if (picked)
    for (const auto& text : picked->later_copies) wheel_paths.push_back(parse_later_copy(text).path);
  if (t)
    for (const auto& path : wheel_paths) {
      auto wheel = wheel_of(t, path);
      auto pin = wheel ? t->nvidia_pins.find(*wheel) : t->nvidia_pins.end();
      if (pin == t->nvidia_pins.end()) continue;
      std::string line = *wheel + "==" + pin->second;
      if (std::find(pins.begin(), pins.end(), line) == pins.end()) pins.push_back(line);
    }
  if (!pins.empty())
    x.fix.push_back("or reinstall the wheels at the versions torch pins: pip install --force-reinstall --no-deps " + join(pins, " "));
  else if (x.fix.empty() || (picked && picked->via == "RPATH"))
    x.fix.push_back("reinstall the CUDA wheels torch pins, whole: pip install --force-reinstall " + wheel_hint(path_basename(first.library)));
  return x;
}

// A library found in a PyTorch environment whose ELF headers cannot be read.
Finding damaged_library_finding(const Resolution& b) {
  auto x = make_finding("torch-library-damaged");
  x.evidence.push_back(b.error);
  auto site = b.binary.find("/torch/lib/");
  std::string env = site == std::string::npos ? "" : b.binary.substr(0, site);
  x.fix = {"reinstall PyTorch in that environment: pip install --force-reinstall --no-deps torch" +
               (env.empty() ? std::string() : " (site-packages " + env + ")"),
           "check the disk is not full and the file is not cut short: ls -l " + b.binary};
  return x;
}

// Copies of the wheel's CUDA libraries elsewhere on the loader's path (not the one it picks now:
// that is cuda-lib-shadowed).
void second_copy_rule(const Resolution& b, std::vector<Finding>& out) {
  auto x = make_finding("cuda-lib-second-copy");
  std::vector<std::string> ld_path_dirs;
  std::string nvidia;  // site-packages/nvidia
  for (const auto& lib : b.libraries) {
    if (!lib.path || lib.via == "LD_LIBRARY_PATH" || !is_cuda_family(lib.name)) continue;
    if (lib.path->find("/nvidia/") == std::string::npos) continue;
    nvidia = path_dirname(path_dirname(path_dirname(*lib.path)));
    for (const auto& text : lib.later_copies) {
      auto c = parse_later_copy(text);
      if (c.via != "ld.so.cache" && c.via != "default directory" && c.via != "LD_LIBRARY_PATH") continue;
      if (c.via == "LD_LIBRARY_PATH") {
        x.severity = Severity::warning;
        // One folder usually holds every copy (/usr/local/cuda/lib64): named once.
        if (std::find(ld_path_dirs.begin(), ld_path_dirs.end(), path_dirname(c.path)) == ld_path_dirs.end())
          ld_path_dirs.push_back(path_dirname(c.path));
      }
      if (x.evidence.size() < 8)
        x.evidence.push_back(lib.name + ": the wheel's " + *lib.path + (lib.version ? " [" + *lib.version + "]" : "") +
                             "; also " + c.path + (c.version.empty() ? "" : " [" + c.version + "]") + " (" + c.via + ")");
    }
  }
  if (x.evidence.empty()) return;
  if (x.severity == Severity::warning)
    x.fix = {"unset LD_LIBRARY_PATH when running PyTorch or dlready (or drop " + join(ld_path_dirs, ", ") +
                 " from it): a library opened by name through it gets the other copy",
             "or put the wheel's folders first: export LD_LIBRARY_PATH=$(ls -d " + nvidia +
                 "/*/lib | paste -sd:):$LD_LIBRARY_PATH"};
  else
    x.fix = {"nothing to do for PyTorch or dlready (both load the wheel's copies first); a program of your own "
             "that links these libraries should take them from the same place: -Wl,-rpath,<site-packages>/nvidia/<component>/lib"};
  out.push_back(x);
}

}  // namespace

void rules_libraries(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  arch_rules(f, d, out);
  for (const auto& b : f.binaries) {
    if (!b.error.empty()) {  // --binary errors are reported by the CLI before diagnosis
      if (!b.requested) out.push_back(damaged_library_finding(b));
      continue;
    }
    std::vector<const MissingVersion*> versions, symbols;  // a version missing; a symbol of a present one
    for (const auto& m : b.missing_versions) (m.symbol.empty() ? versions : symbols).push_back(&m);
    if (!versions.empty()) out.push_back(missing_version_finding(b, versions));
    if (!symbols.empty()) out.push_back(missing_symbol_finding(f, b, symbols));
    if (b.unlinked_torch_cuda) {
      auto x = make_finding("libtorch-cuda-not-linked");
      x.evidence.push_back(b.binary + " needs libtorch_cpu.so but not libtorch_cuda.so");
      x.evidence.push_back("its LibTorch has " + *b.unlinked_torch_cuda);
      x.fix = {"link with the exported CMake targets: target_link_libraries(app PRIVATE ${TORCH_LIBRARIES})",
               "or by hand: -Wl,--no-as-needed -ltorch_cuda -ltorch -Wl,--as-needed"};
      out.push_back(x);
    }
    bool torch = ends_with(b.binary, "/libtorch_cuda.so");
    if (torch) second_copy_rule(b, out);
    // Every library one LD_LIBRARY_PATH folder shadows for this program: one finding, one fix.
    std::map<std::string, Finding> shadowed_by_dir;
    for (const auto& lib : b.libraries) {
      if (!lib.path) {
        if (torch && f.arm && f.arm->tegra) continue;  // jetson-wheel-libraries-missing says what a Jetson needs
        auto x = make_finding(is_cuda_family(lib.name) ? "cuda-lib-unresolvable" : "lib-unresolvable");
        x.evidence.push_back(lib.name + ", needed by " + lib.needed_by + ", is not found");
        x.evidence.push_back("searched: " + (lib.searched.empty() ? std::string("nothing") : join(lib.searched, ", ")));
        const PythonEnv* conda = torch ? conda_env_holding(f, b.binary) : nullptr;
        if (conda) {
          // conda's torch takes its CUDA libraries from the environment's lib/ (pytorch-cuda's
          // packages): another package's CUDA of another major replaced or never brought them.
          std::string cuda;
          for (const auto& c : conda->conda_packages)
            if (c.name == "pytorch-cuda") cuda = c.version;
          x.evidence.push_back("conda environment " + conda->prefix + (cuda.empty() ? "" : ": pytorch-cuda " + cuda));
          x.fix = {"conda install -p " + conda->prefix + " -c pytorch -c nvidia pytorch-cuda=" +
                       (cuda.empty() ? std::string("<torch's CUDA>") : cuda) + " (its CUDA libraries, the versions torch was built with)",
                   "see what replaced them: conda list -p " + conda->prefix + " 'cuda|cublas|cusparse|cudnn|nvjitlink'"};
        } else if (torch)
          x.fix = {"reinstall PyTorch with its CUDA wheels: pip install --force-reinstall torch (brings " + wheel_hint(lib.name) + ")"};
        else
          x.fix = {"link the program with -Wl,-rpath,<dir of " + lib.name + "> (or install the package that ships it)",
                   "or for one shell: export LD_LIBRARY_PATH=<dir of " + lib.name + ">:$LD_LIBRARY_PATH"};
        out.push_back(x);
      } else if (lib.via == "LD_LIBRARY_PATH" && !lib.later_copies.empty() && is_cuda_family(lib.name) &&
                 !lacks_symbols(b, *lib.path)) {  // library-symbol-missing says it, with more
        const std::string dir = path_dirname(*lib.path);
        auto [it, first] = shadowed_by_dir.try_emplace(dir, make_finding("cuda-lib-shadowed"));
        Finding& x = it->second;
        x.evidence.push_back(lib.name + " for " + lib.needed_by + " comes from LD_LIBRARY_PATH: " + *lib.path +
                             (lib.version ? " [" + *lib.version + "]" : ""));
        for (const auto& c : lib.later_copies) x.evidence.push_back("shadowed copy: " + c);
        if (first)
          x.fix = {"unset LD_LIBRARY_PATH (or drop the directory " + dir + " from it) when running "
                   "PyTorch; it brings its own CUDA libraries"};
      }
    }
    for (auto& [dir, x] : shadowed_by_dir) out.push_back(std::move(x));
  }
}

}  // namespace dlready
