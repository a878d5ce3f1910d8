// The Windows source of facts: the registry, Win32 calls and System32's files of the machine it runs
// on (probe/gather.hpp; the Linux source is probe/linux/gather_linux.cpp).
#include "probe/gather.hpp"
#include "probe/windows/windows_probes.hpp"

namespace dlready {
namespace {

// The variables that change which GPUs CUDA sees, where Python and CUDA come from, and how PyTorch
// allocates (the Linux list's Windows spellings).
const char* const kVars[] = {"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "PYTORCH_CUDA_ALLOC_CONF",
                             "PYTORCH_ALLOC_CONF", "CUDA_PATH", "CUDA_HOME", "CONDA_PREFIX", "VIRTUAL_ENV",
                             "PATH", "Path", "USERPROFILE", "LOCALAPPDATA", "PYTHONPATH", "OMP_NUM_THREADS", "CUDA_LAUNCH_BLOCKING",
                             "CUDA_MODULE_LOADING", "NVIDIA_TF32_OVERRIDE", "USERNAME", "COMPUTERNAME", "CUDA_CACHE_DISABLE",
                             "CUDA_CACHE_MAXSIZE", "CUDA_CACHE_PATH"};

Facts windows_facts(const GatherOptions& options) {
  const auto& env = options.env;
  Facts f;
  f.root = "C:\\";
  f.os = probe_windows_os();
  f.pci = probe_display_adapters();
  for (const char* k : kVars)
    if (auto it = env.find(k); it != env.end()) f.env.vars[k] = it->second;
  f.python = probe_windows_python(env);
  f.windows = probe_windows_settings(env);
  f.windows->torch_dlls = probe_torch_dlls(f.python, env);
  probe_windows_graphics(*f.windows);
  f.cuda_libs.toolkits = probe_windows_toolkits(env);
  f.libcuda = probe_windows_library("nvcuda.dll", env);
  f.libnvml = probe_windows_library("nvml.dll", env);
  for (const auto& g : f.pci.nvidia)
    if (g.driver && !f.kernel.loaded_version) f.kernel.loaded_version = g.driver;  // the display driver's version
  if (options.driver_probe && f.libcuda.path) {
    f.driver = driver_api_from(windows_driver_child("cuda", *f.libcuda.path, options.probe_timeout_ms));
    f.driver.library = f.libcuda.path;
  }
  if (options.driver_probe && f.libnvml.path) {
    f.nvml = nvml_from(windows_driver_child("nvml", *f.libnvml.path, options.probe_timeout_ms));
    f.nvml.library = f.libnvml.path;
  }
  return f;
}

GatherResult gather_windows_machine(const GatherOptions& options) {
  GatherResult r;
  r.facts = windows_facts(options);
  r.env = options.env;
  if (auto it = options.env.find("USERNAME"); it != options.env.end()) r.user.name = it->second;
  if (options.redaction_inputs) r.redaction = windows_redaction_inputs(options.env);
  return r;
}

}  // namespace

// The machine it runs on only: what a Windows machine answers through Win32 calls (the registry,
// DXGI, version resources) has no capture to replay yet.
FactSource windows_fact_source() { return {Platform::windows, gather_windows_machine, nullptr}; }

}  // namespace dlready
