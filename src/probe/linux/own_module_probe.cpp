// dlready's own LibTorch module and the LibTorch it links: `dlready train` runs on it whether or
// not any Python has torch, so the doctor's verdict says so (issue 15, item 3: the doctor said
// "CPU training needs PyTorch/LibTorch first" beside a working `dlready train`).
#include "core/text.hpp"
#include "binfmt/elf_reader.hpp"
#include "probe/linux/ld_resolver.hpp"
#include "probe/linux/probes.hpp"

namespace dlready {
namespace {

// The version of the LibTorch in `lib_dir`: a wheel's torch/version.py, an archive's build-version.
std::optional<std::string> libtorch_version(const RootFs& fs, const std::string& lib_dir) {
  std::string top = path_dirname(lib_dir);
  if (auto v = fs.read(top + "/version.py", 64 * 1024))
    if (auto version = find_assignment(*v, "__version__")) return version;
  return fs.read_line(top + "/build-version");
}

// The nvidia-nccl-cuXX wheel installed beside a wheel's torch/lib (site-packages/nvidia_nccl_*.dist-info):
// the NCCL that LibTorch loads, whatever a CUDA toolkit or ld.so.cache hold.
std::optional<std::string> nccl_wheel_beside(const RootFs& fs, const std::string& lib_dir) {
  std::string site = path_dirname(path_dirname(lib_dir));
  for (const auto& name : fs.list(site)) {
    if (!starts_with(name, "nvidia_nccl") || !ends_with(name, ".dist-info")) continue;
    auto dash = name.rfind('-');
    if (dash != std::string::npos) return name.substr(dash + 1, name.size() - dash - 1 - 10);
  }
  return std::nullopt;
}

}  // namespace

OwnModuleFacts probe_own_module(const RootFs& fs, const std::string& module, const EnvFacts& env,
                                const std::optional<std::string>& moved_torch_lib, const std::optional<std::string>& problem) {
  OwnModuleFacts m;
  if (!fs.exists(module)) {
    m.error = module + " not found";
    return m;
  }
  m.path = module;
  auto elf = read_elf(fs, module);
  if (!elf.info) {
    m.error = elf.error;
    return m;
  }
  // As ld.so looks for a DT_NEEDED of an object with DT_RUNPATH: LD_LIBRARY_PATH, then RUNPATH.
  if (problem) {
    m.error = *problem;
    return m;
  }
  std::vector<std::string> dirs = split(env.get("LD_LIBRARY_PATH").value_or(""), ':');
  if (moved_torch_lib) dirs.push_back(*moved_torch_lib);
  for (const auto& d : expand_search_path(elf.info->runpath ? elf.info->runpath : elf.info->rpath, path_dirname(module)))
    dirs.push_back(d);
  for (const auto& d : dirs)
    if (!d.empty() && fs.exists(d + "/libtorch_cpu.so")) {
      m.libtorch_dir = d;
      m.torch_version = libtorch_version(fs, d);
      m.nccl_version = nccl_wheel_beside(fs, d);
      return m;
    }
  m.error = "its libtorch_cpu.so is in none of: " + join(dirs, ":");
  return m;
}

}  // namespace dlready
