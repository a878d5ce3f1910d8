// Rules about the software stack: PyTorch installs, CUDA toolkit, LibTorch, BLAS.
#include "core/text.hpp"
#include "diagnose/catalogue.hpp"
#include "diagnose/compat.hpp"
#include "diagnose/rules.hpp"

namespace dlready {
namespace {

std::string torch_label(const TorchInstall& t) {
  return "torch " + t.version.value_or("(unknown version)") + " in " + t.site_packages;
}

bool is_cpu_build(const TorchInstall& t) {
  if (t.version && contains(*t.version, "+cpu")) return true;
  return t.version_py_found && !t.cuda && !t.has_libtorch_cuda;
}

// The shell's environment has no torch while another has: `import torch` fails where the user types
// it, though the doctor found a PyTorch. A venv made with --system-site-packages sees its base's.
void active_env_rule(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  const PythonEnv* active = nullptr;
  const PythonEnv* with_torch = nullptr;
  for (const auto& e : f.python.envs) {
    if (e.active && !active) active = &e;
    if (!e.torch.empty() && !with_torch && !e.active) with_torch = &e;
  }
  if (!active || !active->torch.empty() || active->system_site_packages || !with_torch) return;
  bool conda = active->kind == "conda";
  if (conda && with_torch->kind == "user") return;  // conda's Python imports the user's site-packages too
  auto x = make_finding("active-env-without-torch");
  x.evidence = {"the active environment " + active->prefix + " (" + (conda ? "CONDA_PREFIX" : "VIRTUAL_ENV") +
                    ") has no torch: import torch fails in this shell",
                "torch " + with_torch->torch[0].version.value_or("?") + " is in " + with_torch->prefix + " (" + with_torch->kind + ")"};
  std::string use = with_torch->kind == "conda" ? "conda activate " + with_torch->prefix
                    : with_torch->kind == "venv" ? ". " + with_torch->prefix + "/bin/activate"
                                                 : with_torch->prefix + "/bin/python3 (deactivate first)";
  x.fix = {"use the environment that has it: " + use,
           "or install it into this one: " + active->prefix + "/bin/python -m " + pip_install_command(f, d)};
  out.push_back(x);
}

void torch_rules(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  bool any = false;
  for (const auto& e : f.python.envs) any = any || !e.torch.empty();
  if (!any) {
    auto x = make_finding("torch-not-installed");
    std::vector<std::string> where;
    for (const auto& e : f.python.envs) where.push_back(e.prefix + " (" + e.kind + (e.active ? ", active" : "") + ")");
    x.evidence.push_back(where.empty() ? "no Python environment found" : "looked in: " + join(where, ", "));
    x.fix = {"dlready setup ~/venvs/torch (plans the build that fits this machine, installs it and proves it)",
             "or by hand: python3 -m venv ~/venvs/torch && . ~/venvs/torch/bin/activate", pip_install_command(f, d)};
    out.push_back(x);
    return;
  }
  active_env_rule(f, d, out);
  const TorchInstall* primary = primary_torch(f);
  // A Jetson's CPU wheel is rules_arm's jetson-needs-jetpack-wheel (the fix is another index).
  if (primary && is_cpu_build(*primary) && d.gpu_evidence && !(f.arm && f.arm->tegra)) {
    auto x = make_finding("torch-cpu-only");
    x.evidence.push_back(torch_label(*primary) + ": torch.version.cuda is None");
    if (d.machine == "aarch64") {
      x.evidence.push_back("PyPI's aarch64 torch is a CPU build up to 2.10 (its nvidia-* requirements are for x86_64 only)");
      x.fix = aarch64_cuda_fix();
    } else {
      x.fix = {"dlready setup ~/venvs/torch (a new environment with the CUDA build that fits, proven on the GPU)",
               "or in this one: pip uninstall -y torch torchvision torchaudio", pip_install_command(f, d)};
    }
    out.push_back(x);
  }
  for (const auto& e : f.python.envs) {
    std::vector<std::string> dup;
    for (const auto& t : e.torch)
      if (t.dist_info_count > 1)
        dup.push_back(t.site_packages + " holds " + std::to_string(t.dist_info_count) + " torch-*.dist-info directories");
    if (e.torch.size() > 1)
      for (const auto& t : e.torch) dup.push_back(torch_label(t));
    for (const auto& t : e.torch) {
      bool cu12 = false, cu13 = false;
      for (const auto& [name, v] : t.nvidia_installed) {
        cu12 = cu12 || ends_with(name, "-cu12");
        cu13 = cu13 || ends_with(name, "-cu13");
      }
      if (cu12 && cu13) dup.push_back(t.site_packages + " mixes nvidia-*-cu12 and nvidia-*-cu13 wheels");
    }
    // The user site is on sys.path of every non-venv Python: a torch there shadows the env's.
    if (e.kind != "user" && e.kind != "venv" && !e.torch.empty()) {
      for (const auto& u : f.python.envs)
        if (u.kind == "user" && !u.torch.empty())
          dup.push_back(torch_label(u.torch.front()) + " (user site, imported first) shadows " + torch_label(e.torch.front()));
    }
    if (dup.empty()) continue;
    auto x = make_finding("torch-duplicate-installs");
    x.evidence = dup;
    x.fix = {"keep one: python -m pip uninstall -y torch (repeat until pip finds none), then reinstall once: " +
                 pip_install_command(f, d),
             "check which one imports: python -c 'import torch; print(torch.__file__, torch.__version__)'"};
    out.push_back(x);
  }
  for (const auto& e : f.python.envs) {
    for (const auto& t : e.torch) {
      std::vector<std::string> missing, differ;
      for (const auto& [name, pinned] : t.nvidia_pins) {
        auto it = t.nvidia_installed.find(name);
        if (it == t.nvidia_installed.end())
          missing.push_back(name + "==" + pinned);
        else if (it->second != pinned)
          differ.push_back(name + " " + it->second + " (torch pins " + pinned + ")");
      }
      if (!missing.empty()) {
        auto x = make_finding("torch-cuda-wheel-missing");
        x.evidence.push_back(torch_label(t));
        for (const auto& m : missing) x.evidence.push_back("missing: " + m);
        x.fix = {e.prefix + "/bin/python -m pip install " + join(missing, " ")};
        out.push_back(x);
      }
      if (!differ.empty()) {
        auto x = make_finding("torch-cuda-wheel-version-mismatch");
        x.evidence.push_back(torch_label(t));
        x.evidence.insert(x.evidence.end(), differ.begin(), differ.end());
        std::vector<std::string> pins;
        for (const auto& [name, pinned] : t.nvidia_pins) pins.push_back(name + "==" + pinned);
        x.fix = {e.prefix + "/bin/python -m pip install " + join(pins, " ")};
        out.push_back(x);
      }
    }
  }
}

}  // namespace

// On both platforms (Windows: rules_windows.cpp): a CUDA build of PyTorch and only toolkits of
// another CUDA major, whose nvcc builds extensions that do not load.
void toolkit_rules(const Facts& f, std::vector<Finding>& out) {
  const TorchInstall* t = primary_torch(f);
  if (!t || !t->cuda) return;
  for (const auto& tk : f.cuda_libs.toolkits) {
    if (!tk.has_nvcc || !tk.version) continue;
    auto tk_major = split(*tk.version, '.')[0];
    auto torch_major = split(*t->cuda, '.')[0];
    if (tk_major == torch_major) return;  // one matching toolkit is enough
  }
  for (const auto& tk : f.cuda_libs.toolkits) {
    if (!tk.has_nvcc || !tk.version) continue;
    auto x = make_finding("cuda-toolkit-torch-mismatch");
    x.evidence.push_back("nvcc " + *tk.version + " in " + tk.path);
    x.evidence.push_back(torch_label(*t) + " uses CUDA " + *t->cuda);
    x.fix = {"install the CUDA " + *t->cuda + " toolkit and point CUDA_HOME at it before building extensions"};
    out.push_back(x);
    return;
  }
}

// Only where the doctor looked for its own module (the machine it runs on, not another --root).
void own_module_rules(const Facts& f, std::vector<Finding>& out) {
  const auto& m = f.own_module;
  if (m.error.empty() || m.libtorch_dir) return;
  auto x = make_finding("dlready-module-missing");
  x.evidence.push_back(m.error);
  if (m.built_by)
    x.fix = {*m.built_by + "  (compiles it once against the active torch with your C++ compiler, a few minutes; "
                           "dlready train does it on first use)"};
  else
    x.fix = {"build it beside the binary: scripts/setup.sh (or cmake --build build/release)",
             "an installed dlready: cmake --install build/release --prefix ~/.local puts it in ~/.local/lib/dlready"};
  out.push_back(x);
}

void rules_software(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  torch_rules(f, d, out);
  own_module_rules(f, out);
  toolkit_rules(f, out);
  for (const auto& li : f.libtorch.installs) {
    if (li.cxx11_abi != false) continue;
    auto x = make_finding("libtorch-abi-mismatch");
    x.evidence.push_back(li.path + " (" + li.build_version.value_or("?") + ") sets _GLIBCXX_USE_CXX11_ABI=0");
    x.evidence.push_back("g++ 5 and newer default to _GLIBCXX_USE_CXX11_ABI=1");
    x.fix = {"download the cxx11-abi LibTorch archive (libtorch-cxx11-abi-shared-with-deps-*.zip)",
             "or build your code with add_compile_definitions(_GLIBCXX_USE_CXX11_ABI=0)"};
    out.push_back(x);
  }
  // Only where the slow BLAS is on someone's path: the PyTorch wheels and numpy's wheels carry
  // their own, so apt-get would change nothing for them (issue 15, item 4).
  std::vector<std::string> users;
  for (const auto& c : f.blas.consumers)
    if (c.system_blas) users.push_back(c.name + " (" + c.library + ")");
  if (f.blas.implementation == std::string("reference") && !users.empty()) {
    auto x = make_finding("blas-reference");
    x.evidence.push_back("libblas.so.3 resolves to " + f.blas.library.real_path.value_or(f.blas.library.path.value_or("?")) +
                         " (netlib reference BLAS)");
    x.evidence.push_back("it does the matrix math of: " + join(users, ", "));
    for (const auto& c : f.blas.consumers)
      if (!c.system_blas) x.evidence.push_back("not of " + c.name + ": its BLAS is " + c.blas);
    x.fix = {"sudo apt-get install -y libopenblas0-pthread (Debian/Ubuntu switch libblas.so.3 to OpenBLAS through "
             "update-alternatives)",
             "check: update-alternatives --display libblas.so.3-$(gcc -dumpmachine)"};
    out.push_back(x);
  }
}

}  // namespace dlready
