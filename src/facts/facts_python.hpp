// Python environments and the PyTorch in them, LibTorch installs, and dlready's own module.
// Plain data (std::nullopt = unknown); the tables say how each field is written (facts/fact_table.hpp).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "facts/fact_table.hpp"

namespace dlready {

struct TorchInstall {
  std::string site_packages;
  std::optional<std::string> version;       // torch/version.py __version__
  std::optional<std::string> cuda;          // torch/version.py cuda (nullopt = CPU build)
  bool version_py_found = false;
  bool has_libtorch_cuda = false;           // torch/lib/libtorch_cuda.so present
  std::optional<std::string> dist_version;  // torch-*.dist-info Version
  std::optional<bool> xnnpack;              // torch/include/xnnpack.h: built with XNNPACK (true), else unknown
  int dist_info_count = 0;                  // >1 = two torch dist-infos in one site-packages
  std::map<std::string, std::string> nvidia_pins;       // name -> pinned version (METADATA)
  std::map<std::string, std::string> nvidia_installed;  // name -> installed version
};

// A package of a conda environment (conda-meta/<name>-<version>-<build>.json).
struct CondaPackage {
  std::string name, version, build;  // pytorch, 2.1.0, py3.11_cpu_0 (from the record's file name)
  std::string channel;               // the channel's last part: pytorch, conda-forge, nvidia ("" unknown)
  std::vector<std::string> depends;  // "cpuonly", "pytorch-mutex 1.0 cpu", ...
};

struct PythonEnv {
  std::string prefix;
  std::string kind;  // venv, conda, system, user, pyenv
  std::vector<std::string> site_packages;
  bool active = false;  // VIRTUAL_ENV / CONDA_PREFIX
  // What made it the user's: "VIRTUAL_ENV", "CONDA_PREFIX", "python -m dlready" (the interpreter
  // that ran dlready), "pyenv: <what chose the version>"; nullopt when not active.
  std::optional<std::string> active_by;
  bool system_site_packages = false;  // pyvenv.cfg include-system-site-packages = true: its base's packages import too
  std::optional<std::string> python_version;  // from lib/pythonX.Y
  std::optional<std::string> python_full_version;  // 3.11.7: pyvenv.cfg, conda-meta, pyenv's folder
  std::vector<TorchInstall> torch;  // in import order (first wins)
  // Every distribution of an environment that has torch (name -> version, from *.dist-info
  // names): what `dlready export` pins so the lock rebuilds the environment, not torch alone.
  std::map<std::string, std::string> distributions;
  // A conda environment's packages (conda-meta), name order: what conda installed, and so how a fix
  // must be worded (pip advice in a conda environment reinstalls the CPU build).
  std::vector<CondaPackage> conda_packages;
};

struct PythonFacts {
  std::vector<PythonEnv> envs;
  // What the user's `python` runs: the first `python` (else `python3`) on PATH, and the prefix of
  // the environment it belongs to (<prefix>/bin/python). nullopt: none on PATH, or not read here.
  std::optional<std::string> python_on_path, python_on_path_prefix;
  // How a shim on PATH chose the prefix: "pyenv: PYENV_VERSION", "pyenv: <dir>/.python-version",
  // "pyenv: ~/.pyenv/version"; nullopt for a plain interpreter.
  std::optional<std::string> python_on_path_via;
};

struct LibtorchInstall {
  std::string path;
  std::optional<std::string> build_version;  // build-version: 2.8.0+cu129
  std::optional<bool> cxx11_abi;             // from TorchConfig / torch flags
};

struct LibtorchFacts {
  std::vector<LibtorchInstall> installs;
};

// dlready's own LibTorch module (what `dlready train/verify/bench` load), and the LibTorch it
// links: the doctor must not say "no PyTorch" while `dlready train` runs on this one.
struct OwnModuleFacts {
  std::optional<std::string> path;           // libdlready_train.so beside the binary (or installed)
  std::optional<std::string> libtorch_dir;   // where its libtorch_cpu.so resolves (LD_LIBRARY_PATH, RUNPATH)
  std::optional<std::string> torch_version;  // that LibTorch's version (torch/version.py, build-version)
  std::optional<std::string> nccl_version;   // the nvidia-nccl wheel beside it (its dist-info): the NCCL it loads
  // A wheel-installed dlready builds its module against the user's torch: the command that does.
  std::optional<std::string> built_by;
  std::string error;                         // why the module or its LibTorch could not be read
};

const FactTable<PythonEnv>& python_env_fields();
const FactTable<TorchInstall>& torch_install_fields();
const FactTable<LibtorchInstall>& libtorch_install_fields();
const FactTable<OwnModuleFacts>& own_module_fields();

}  // namespace dlready
