// The fields `python -m torch.utils.collect_env` prints for a bug report, from the doctor's facts
// (files only: no Python, no torch import, no program run), in its order and with its labels, so a
// report pasted into a PyTorch issue has what maintainers ask for.
#include "core/text.hpp"
#include "diagnose/rules.hpp"
#include "report/render.hpp"

namespace dlready {
namespace {

const PythonEnv* env_of(const Facts& f, const TorchInstall* t) {
  for (const auto& e : f.python.envs) {
    if (t && !e.torch.empty() && &e.torch.front() == t) return &e;
    if (!t && e.active) return &e;
  }
  return nullptr;
}

std::string gpu_models(const Facts& f) {
  std::vector<std::string> out;
  for (const auto& d : f.driver.devices) out.push_back("GPU " + std::to_string(d.index) + ": " + d.name.value_or("?"));
  if (out.empty())
    for (const auto& g : f.pci.nvidia)
      if (g.is_gpu) out.push_back(g.address + ": " + g.name.value_or("[10de:" + g.device_id + "]") + " (PCI)");
  return out.empty() ? "none found" : join(out, "; ");
}

// From the wheel next to torch (what it loads), else the library the loader finds.
std::string library_version(const Facts& f, const PythonEnv* env, const char* dist, const char* soname) {
  if (env)
    for (const auto& [name, version] : env->distributions)
      if (starts_with(name, dist)) return version + " (" + name + ")";
  for (const auto& l : f.cuda_libs.libraries)
    if (starts_with(l.soname, soname) && l.found()) return l.real_path.value_or(*l.path);
  return "not found";
}

// collect_env's "Versions of relevant libraries": its name filters, from dist-info names.
std::string relevant_libraries(const PythonEnv* env) {
  if (!env) return "no Python environment";
  std::vector<std::string> out;
  for (const auto& [name, version] : env->distributions)
    for (const char* p : {"torch", "numpy", "triton", "nvidia", "onnx", "optree", "mypy", "flake8"})
      if (starts_with(name, p)) {
        out.push_back("[pip3] " + printable(name, 256) + "==" + printable(version, 256));  // one line each
        break;
      }
  return out.empty() ? "none" : "\n" + join(out, "\n");
}

}  // namespace

std::vector<std::pair<std::string, std::string>> collect_env_fields(const Facts& f, const Report& r) {
  auto d = derive(f);
  const TorchInstall* t = primary_torch(f);
  const PythonEnv* env = env_of(f, t);
  auto na = [](const std::optional<std::string>& v, const char* none = "N/A") { return v.value_or(none); };
  std::string glibc = f.os.glibc ? "glibc-" + *f.os.glibc : "N/A";
  std::string cuda_available = "unknown";
  for (const auto& v : r.verdict.torch)
    if (t && v.location == t->site_packages) cuda_available = v.cuda_available ? "True (predicted)" : "False (predicted)";
  std::string cpu = f.os.cpu_model.value_or("?") + ", " + std::to_string(f.os.cpu_count.value_or(0)) + " CPUs" +
                    (f.os.cpu_flags.empty() ? "" : "\nFlags: " + join(f.os.cpu_flags, " "));
  return {
      {"PyTorch version", t ? na(t->version) : "N/A"},
      {"CUDA used to build PyTorch", t ? na(t->cuda) : "N/A"},
      {"OS", na(f.os.pretty_name, "unknown") + " (" + na(f.os.arch, "?") + ")"},
      {"GCC version", f.os.gcc_version_text ? *f.os.gcc_version_text
                      : f.os.gcc_versions.empty() ? "Could not collect" : join(f.os.gcc_versions, ", ")},
      {"Clang version", f.os.clang_versions.empty() ? "Could not collect" : join(f.os.clang_versions, ", ")},
      {"CMake version", f.os.cmake_version ? "version " + *f.os.cmake_version : "Could not collect"},
      {"Libc version", glibc},
      {"Python version", env ? na(env->python_full_version, env->python_version.value_or("?").c_str()) : "N/A"},
      {"Python platform", "Linux-" + na(f.os.kernel, "?") + "-" + na(f.os.arch, "?") + "-with-glibc" + na(f.os.glibc, "?")},
      {"Is CUDA available", cuda_available},
      {"CUDA runtime version", f.cuda_libs.toolkits.empty() ? "No CUDA" : na(f.cuda_libs.toolkits.front().version, "?")},
      {"CUDA_MODULE_LOADING set to", na(f.env.get("CUDA_MODULE_LOADING"))},
      {"GPU models and configuration", gpu_models(f)},
      {"Nvidia driver version", na(d.driver_version, "Could not collect")},
      {"cuDNN version", library_version(f, env, "nvidia-cudnn", "libcudnn")},
      {"NCCL version", library_version(f, env, "nvidia-nccl", "libnccl")},
      {"Caching allocator config", na(f.env.get("PYTORCH_CUDA_ALLOC_CONF"))},
      {"Is XNNPACK available", !t ? "N/A" : t->xnnpack ? (*t->xnnpack ? "True" : "False") : "Could not collect"},
      {"CPU", cpu},
      {"Versions of relevant libraries", relevant_libraries(env)},
  };
}

}  // namespace dlready
