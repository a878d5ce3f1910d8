// The Python environments' PyTorch, written once for every platform: no torch anywhere, a shell
// whose environment lacks the torch another has, a CPU build on a machine with an NVIDIA GPU, two
// installs where one imports, the nvidia-* wheels torch pins. The platform's record words each fix
// (its interpreter's path, how an environment is made and entered, setup's line).
#include "core/path_text.hpp"
#include "core/text.hpp"
#include "diagnose/catalogue.hpp"
#include "diagnose/rules.hpp"
#include "platform/platform_record.hpp"

namespace dlready {

std::string torch_label(const TorchInstall& t) {
  return "torch " + t.version.value_or("(unknown version)") + " in " + t.site_packages;
}

namespace {

bool is_cpu_build(const TorchInstall& t) {
  if (t.version && contains(*t.version, "+cpu")) return true;
  return t.version_py_found && !t.cuda && !t.has_libtorch_cuda;
}

// The interpreter of an environment, as the platform lays it out.
std::string python_of(const PlatformRecord& p, const PythonEnv& e) {
  return e.prefix + std::string(e.kind == "venv" ? p.venv_python : p.env_python);
}

// The line that installs the build for this machine: pip's index chosen for the driver and GPUs where
// PyTorch has CUDA builds, PyPI's own build elsewhere (a Mac's).
std::string install_line(const PlatformRecord& p, const Facts& f, const Derived& d) {
  return p.cuda_wheels ? pip_install_command(f, d) : "pip install torch torchvision";
}

// The shell's environment has no torch while another has: `import torch` fails where the user types
// it, though the doctor found a PyTorch. A venv made with --system-site-packages sees its base's.
void active_env_rule(const PlatformRecord& p, const Facts& f, const Derived& d, std::vector<Finding>& out) {
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
  const std::string by = active->active_by.value_or(conda ? "CONDA_PREFIX" : "VIRTUAL_ENV");
  const std::string whose = by == "python -m dlready" ? "the Python that ran `python -m dlready`, " + active->prefix + ","
                            : starts_with(by, "pyenv: ") ? "the Python your shell runs, " + active->prefix + " (" + by + "),"
                                                         : "the active environment " + active->prefix + " (" + by + ")";
  x.evidence = {whose + " has no torch: import torch fails " + (by == "python -m dlready" ? "in it" : "in this shell"),
                "torch " + with_torch->torch[0].version.value_or("?") + " is in " + with_torch->prefix + " (" + with_torch->kind + ")"};
  std::string use = with_torch->kind == "conda" ? "conda activate " + with_torch->prefix
                    : with_torch->kind == "venv"
                        ? std::string(p.activate_before) + with_torch->prefix + std::string(p.activate_after)
                        : python_of(p, *with_torch) + " (deactivate first)";
  x.fix = {"use the environment that has it: " + use,
           "or install it into this one: " + python_of(p, *active) + " -m " + install_line(p, f, d)};
  out.push_back(x);
}

void not_installed_rule(const PlatformRecord& p, const Facts& f, const Derived& d, std::vector<Finding>& out) {
  auto x = make_finding("torch-not-installed");
  std::vector<std::string> where;
  for (const auto& e : f.python.envs) where.push_back(e.prefix + " (" + e.kind + (e.active ? ", active" : "") + ")");
  x.evidence.push_back(where.empty() ? "no Python environment found" + std::string(p.python_places)
                                     : "looked in: " + join(where, ", "));
  x.fix = {std::string(p.setup_command) + (p.setup_installs ? " (plans the build that fits this machine, installs it and proves it)"
                                                            : " (the build that fits this machine, and the commands that install and prove it)"),
           std::string(p.new_environment), install_line(p, f, d)};
  out.push_back(x);
}

const PythonEnv* env_of(const Facts& f, const TorchInstall* t) {
  for (const auto& e : f.python.envs)
    for (const auto& x : e.torch)
      if (&x == t) return &e;
  return nullptr;
}

const CondaPackage* conda_package(const PythonEnv& e, const std::string& name) {
  for (const auto& c : e.conda_packages)
    if (c.name == name) return &c;
  return nullptr;
}

// pytorch-cuda, the metapackage of PyTorch's conda channel, for the newest CUDA the driver runs
// (its last releases: 11.8, 12.1 and 12.4; the channel stopped with torch 2.5.1).
std::string pytorch_cuda_for(const Derived& d) {
  const std::string max = d.driver_max_cuda.value_or("12.4");
  for (const char* v : {"12.4", "12.1", "11.8"})
    if (compare_versions(max, v) >= 0) return v;
  return "11.8";
}

// A conda environment chose the CPU build through its packages: `cpuonly` (which pins pytorch-mutex
// to its cpu build), pytorch-mutex's cpu build, a pytorch build string "..._cpu_...", or the old
// `pytorch-cpu` package. pip advice would reinstall the CPU build at conda's next solve, so the fix
// is conda's (issue 59 item 2).
bool conda_cpu_evidence(const PythonEnv& e, Finding& x) {
  bool cpu = false;
  if (const auto* torch = conda_package(e, "pytorch"); torch && contains(torch->build, "cpu")) {
    x.evidence.push_back("conda: pytorch " + torch->version + " " + torch->build +
                         (torch->channel.empty() ? "" : " (" + torch->channel + ")") + ", a CPU build");
    cpu = true;
  }
  for (const char* name : {"cpuonly", "pytorch-cpu"})
    if (const auto* c = conda_package(e, name)) {
      x.evidence.push_back(std::string("conda: ") + name + " " + c->version + " is installed");
      cpu = true;
    }
  if (const auto* mutex = conda_package(e, "pytorch-mutex"); mutex && contains(mutex->build, "cpu")) {
    x.evidence.push_back("conda: pytorch-mutex " + mutex->version + " " + mutex->build + " selects the CPU build");
    cpu = true;
  }
  // Who asked for it: a package whose depends name cpuonly (torchdata's and others' CPU builds did).
  for (const auto& c : e.conda_packages)
    for (const auto& dep : c.depends)
      if ((starts_with(dep, "cpuonly") || (starts_with(dep, "pytorch-mutex") && contains(dep, "cpu"))) && c.name != "cpuonly")
        x.evidence.push_back("conda: " + c.name + " " + c.version + " " + c.build + " depends on " + dep);
  return cpu;
}

void conda_cpu_fix(const PlatformRecord& p, const PythonEnv& e, const Derived& d, Finding& x) {
  std::vector<std::string> remove;
  for (const char* name : {"cpuonly", "pytorch-cpu"})
    if (conda_package(e, name)) remove.push_back(name);
  const std::string env = " -p " + e.prefix;
  x.fix.clear();
  if (!remove.empty()) x.fix.push_back("conda remove" + env + " " + join(remove, " ") + " (and the package that depends on it)");
  x.fix.push_back("conda install" + env + " -c pytorch -c nvidia \"pytorch=*=*cuda*\" pytorch-cuda=" + pytorch_cuda_for(d) +
                  " (PyTorch's conda channel ends with 2.5)");
  std::string tag = pytorch_cuda_for(d);
  tag.erase(tag.find('.'), 1);  // 12.4 -> cu124, the index's name
  x.fix.push_back("or for a newer torch, pip in this environment once conda's is gone: conda remove" + env +
                  " pytorch torchvision torchaudio, then " + python_of(p, e) +
                  " -m pip install torch torchvision --index-url https://download.pytorch.org/whl/cu" + tag);
}

void cpu_build_rule(const PlatformRecord& p, const Facts& f, const Derived& d, std::vector<Finding>& out) {
  const TorchInstall* primary = primary_torch(f);
  // A Jetson's CPU wheel is rules_arm's jetson-needs-jetpack-wheel (the fix is another index).
  if (!primary || !is_cpu_build(*primary) || !d.gpu_evidence || (f.arm && f.arm->tegra)) return;
  auto x = make_finding("torch-cpu-only");
  x.evidence.push_back(torch_label(*primary) + ": torch.version.cuda is None");
  const PythonEnv* env = env_of(f, primary);
  if (env && !env->conda_packages.empty() && conda_cpu_evidence(*env, x)) {
    conda_cpu_fix(p, *env, d, x);
  } else if (d.machine == "aarch64") {
    x.evidence.push_back("PyPI's aarch64 torch is a CPU build up to 2.10 (its nvidia-* requirements are for x86_64 only)");
    x.fix = aarch64_cuda_fix();
  } else {
    x.fix = {std::string(p.setup_command) + (p.setup_installs ? " (a new environment with the CUDA build that fits, proven on the GPU)"
                                                              : " (the CUDA build that fits, and the commands that install it)"),
             "or in this one: pip uninstall -y torch torchvision torchaudio", install_line(p, f, d)};
  }
  out.push_back(x);
}

void duplicates_rule(const PlatformRecord& p, const Facts& f, const Derived& d, std::vector<Finding>& out) {
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
                 install_line(p, f, d),
             "check which one imports: python -c 'import torch; print(torch.__file__, torch.__version__)'"};
    out.push_back(x);
  }
}

// The nvidia-* wheels torch's METADATA pins, against those installed beside it.
void pinned_wheels_rule(const PlatformRecord& p, const Facts& f, std::vector<Finding>& out) {
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
        x.fix = {python_of(p, e) + " -m pip install " + join(missing, " ")};
        out.push_back(x);
      }
      if (!differ.empty()) {
        auto x = make_finding("torch-cuda-wheel-version-mismatch");
        x.evidence.push_back(torch_label(t));
        x.evidence.insert(x.evidence.end(), differ.begin(), differ.end());
        std::vector<std::string> pins;
        for (const auto& [name, pinned] : t.nvidia_pins) pins.push_back(name + "==" + pinned);
        x.fix = {python_of(p, e) + " -m pip install " + join(pins, " ")};
        out.push_back(x);
      }
    }
  }
}

// torch before 2.3 was compiled against NumPy 1's ABI: beside NumPy 2, `import torch` warns "A module
// that was compiled using NumPy 1.x cannot be run in NumPy 2.x" and every tensor<->array conversion
// fails ("Numpy is not available", "_ARRAY_API not found"). 2.3 is the first release built against
// NumPy 2 (PyTorch's 2.3 release notes, pytorch#107302). JetPack's builds are rules_arm's.
void numpy_abi_rule(const PlatformRecord& p, const Facts& f, std::vector<Finding>& out) {
  for (const auto& e : f.python.envs) {
    auto numpy = e.distributions.find("numpy");
    if (numpy == e.distributions.end() || compare_versions(numpy->second, "2") < 0) continue;
    for (const auto& t : e.torch) {
      if (!t.version || compare_versions(*t.version, "2.3") >= 0 || contains(*t.version, ".nv")) continue;
      auto x = make_finding("torch-needs-numpy1");
      x.evidence = {torch_label(t) + ": built against NumPy 1 (torch 2.3 is the first built for NumPy 2)",
                    "numpy " + numpy->second + " in the same environment (" + e.prefix + ")"};
      x.fix = {python_of(p, e) + " -m pip install \"numpy<2\"",
               "or a torch built for NumPy 2 (2.3 or later): " + python_of(p, e) + " -m pip install --upgrade \"torch>=2.3\""};
      out.push_back(x);
      break;
    }
  }
}

// The shell's `python` is another interpreter than the active environment's: PATH puts another
// folder first (conda's base before a venv, a pyenv shim, /usr/local/bin), so `pip install` and
// `python` reach different environments and the torch installed "in the venv" is not imported.
void python_on_path_rule(const PlatformRecord& p, const Facts& f, std::vector<Finding>& out) {
  const PythonEnv* active = nullptr;
  for (const auto& e : f.python.envs)
    if (e.active && !active) active = &e;
  if (!active || !f.python.python_on_path || !f.python.python_on_path_prefix) return;
  const std::string& runs = *f.python.python_on_path_prefix;
  if (path_normalize(runs) == path_normalize(active->prefix)) return;
  // Only where activation put the environment on PATH and something else came first: a variable
  // set without activation (a tool's VIRTUAL_ENV) is not a shell that runs `python` from it.
  bool on_path = false;
  for (const auto& dir : split(f.env.get("PATH").value_or(""), ':'))
    on_path = on_path || path_normalize(dir) == path_normalize(active->prefix + "/bin");
  if (!on_path) return;
  const PythonEnv* other = nullptr;
  for (const auto& e : f.python.envs)
    if (path_normalize(e.prefix) == path_normalize(runs)) other = &e;
  auto x = make_finding("python-not-the-active-env");
  x.evidence = {"python on PATH is " + *f.python.python_on_path + " (" + runs + ")",
                "the active environment is " + active->prefix + (active->torch.empty() ? "" : ", which has " + torch_label(active->torch[0]))};
  if (other) x.evidence.push_back(runs + (other->torch.empty() ? " has no torch" : " has " + torch_label(other->torch[0])));
  x.fix = {"run the environment's own interpreter: " + python_of(p, *active) + " (and " + python_of(p, *active) + " -m pip)",
           "or put it first again: " + std::string(p.activate_before) + active->prefix + std::string(p.activate_after) +
               " after anything else that changes PATH (conda's base: conda deactivate; or conda config --set "
               "auto_activate_base false)"};
  out.push_back(x);
}

}  // namespace

void rules_python(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  const PlatformRecord& p = platform_of(f);
  bool any = false;
  for (const auto& e : f.python.envs) any = any || !e.torch.empty();
  if (!any) return not_installed_rule(p, f, d, out);
  active_env_rule(p, f, d, out);
  cpu_build_rule(p, f, d, out);
  duplicates_rule(p, f, d, out);
  pinned_wheels_rule(p, f, out);
  numpy_abi_rule(p, f, out);
  python_on_path_rule(p, f, out);
}

}  // namespace dlready
