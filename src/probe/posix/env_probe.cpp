#include "core/text.hpp"
#include "probe/posix/posix_probes.hpp"

extern char** environ;

namespace dlready {

std::map<std::string, std::string> process_environment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return env;
}


namespace {
// The variables that change which GPUs CUDA sees, which libraries the loader picks, and how
// PyTorch allocates and checks CUDA.
const char* const kVars[] = {
    "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "NVIDIA_VISIBLE_DEVICES",
    "NVIDIA_DRIVER_CAPABILITIES", "LD_LIBRARY_PATH", "LD_PRELOAD", "PYTORCH_CUDA_ALLOC_CONF",
    "PYTORCH_ALLOC_CONF", "PYTORCH_NVML_BASED_CUDA_CHECK", "CUDA_HOME", "CUDA_PATH",
    "CONDA_PREFIX", "VIRTUAL_ENV", "PATH", "HOME", "Torch_DIR", "TORCH_DIR", "LIBTORCH",
    "CMAKE_PREFIX_PATH", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
    "CUDA_MODULE_LOADING", "NVIDIA_TF32_OVERRIDE", "NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE",
    "NCCL_SOCKET_IFNAME", "NCCL_IB_DISABLE", "NCCL_DEBUG", "CUDA_LAUNCH_BLOCKING",
    "CUDA_INJECTION64_PATH", "PYTHONPATH", "PYTHONNOUSERSITE", "USER", "GLOO_SOCKET_IFNAME",
    "CUDA_CACHE_DISABLE", "CUDA_CACHE_MAXSIZE", "CUDA_CACHE_PATH", "XDG_CACHE_HOME", "DLREADY_PARENT_PYTHON",
    "PYTORCH_ENABLE_MPS_FALLBACK", "PYTORCH_MPS_HIGH_WATERMARK_RATIO", "PYTORCH_MPS_LOW_WATERMARK_RATIO",
    "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL", "UV_DEFAULT_INDEX", "PIP_CONFIG_FILE",
    "TRITON_PTXAS_PATH", "PYENV_VERSION", "PYENV_ROOT"};

// A variable's value as the doctor keeps it: a path list's first kMaxListEntries entries, any value
// at most kMaxValueBytes. A list of 200,000 folders would be searched for every library and
// written into every report; no loader setting needs more than a few dozen.
constexpr size_t kMaxListEntries = 256;
constexpr size_t kMaxValueBytes = 64 * 1024;

std::string bounded_value(const std::string& name, const std::string& value) {
  // An index URL may carry a user and a token (https://user:token@host/simple): never kept.
  if (name.find("INDEX") != std::string::npos) return without_credentials(value.substr(0, kMaxValueBytes));
  std::string out = value.substr(0, kMaxValueBytes);
  bool list = name == "LD_LIBRARY_PATH" || name == "PATH" || name == "PYTHONPATH" || name == "CMAKE_PREFIX_PATH" ||
              name == "LD_PRELOAD";
  if (!list) return out;
  size_t at = 0;
  for (size_t n = 0; n < kMaxListEntries && at != std::string::npos; ++n) {
    at = out.find(':', at);
    if (at != std::string::npos) ++at;
  }
  if (at != std::string::npos) out.erase(at - 1);
  return out;
}

}  // namespace

EnvFacts probe_env(const std::map<std::string, std::string>& process_env) {
  EnvFacts f;
  for (const char* k : kVars) {
    auto it = process_env.find(k);
    if (it != process_env.end()) f.vars[k] = bounded_value(k, it->second);
  }
  return f;
}

}  // namespace dlready
