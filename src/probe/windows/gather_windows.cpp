// The Windows source of facts: every probe in order, asking a WindowsApi — the machine it runs on
// (the Windows build: live_windows.cpp), or a Windows capture's recorded answers under a root, on
// any build (probe/gather.hpp; the Linux source is probe/linux/gather_linux.cpp).
#include <filesystem>

#include "core/text.hpp"
#include "os/bounded_file.hpp"
#include "platform/platform_record.hpp"
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

constexpr const char* kCaptureDir = "/.dlready-capture";
constexpr const char* kManifest = "/.dlready-capture/capture.json";

void probe_drivers(const WindowsApi& api, const GatherOptions& options, Facts& f) {
  if (!options.driver_probe) return;
  if (f.libcuda.path)
    if (auto child = api.driver_child("cuda", *f.libcuda.path, options.probe_timeout_ms)) {
      f.driver = driver_api_from(*child);
      f.driver.library = f.libcuda.path;
    }
  if (f.libnvml.path)
    if (auto child = api.driver_child("nvml", *f.libnvml.path, options.probe_timeout_ms)) {
      f.nvml = nvml_from(*child);
      f.nvml.library = f.libnvml.path;
    }
}

Facts windows_facts(const WindowsApi& api, const GatherOptions& options) {
  const auto& env = options.env;
  Facts f;
  f.root = "C:\\";
  f.os = probe_windows_os(api);
  f.pci = probe_display_adapters(api);
  for (const char* k : kVars)
    if (auto it = env.find(k); it != env.end()) f.env.vars[k] = it->second;
  f.python = probe_windows_python(api, env);
  f.windows = probe_windows_settings(api, env);
  f.windows->torch_dlls = probe_torch_dlls(api, f.python, env);
  probe_windows_graphics(api, *f.windows);
  f.cuda_libs.toolkits = probe_windows_toolkits(api, env);
  f.libcuda = probe_windows_library(api, "nvcuda.dll", env);
  f.libnvml = probe_windows_library(api, "nvml.dll", env);
  for (const auto& g : f.pci.nvidia)
    if (g.driver && !f.kernel.loaded_version) f.kernel.loaded_version = g.driver;  // the display driver's version
  probe_drivers(api, options, f);
  return f;
}

// The capture under `root`, or the line that says why it cannot be replayed.
std::optional<CaptureManifest> windows_capture(const std::string& root, std::string& error) {
  std::error_code ec;
  if (!std::filesystem::exists(root + kCaptureDir, ec)) {  // a Windows disk, mounted: its registry is not read
    error = "--root " + printable(root) + " holds a Windows machine's files; Windows is read from a capture: run "
            "dlready capture OUT on that machine (dlready.exe) and replay OUT here";
    return std::nullopt;
  }
  std::string file = root + kManifest;
  FileBytes text = read_regular_file(file, 64 << 20, "a capture's capture.json");
  if (!text.bytes) {
    error = text.error + ": this capture cannot be replayed without it (ask for the whole folder, made by dlready capture)";
    return std::nullopt;
  }
  auto m = parse_capture_manifest(*text.bytes, error);
  if (m && !m->windows)
    error = "it names Windows as its platform but holds no Windows answers (made by an older dlready, or edited)";
  if (!error.empty()) {
    error = printable(file) + ": " + error + " (make the capture again with this dlready on that machine: dlready capture OUT)";
    return std::nullopt;
  }
  return m;
}

}  // namespace

GatherResult gather_windows(const WindowsApi& api, const GatherOptions& options) {
  GatherResult r;
  r.facts = windows_facts(api, options);
  r.env = options.env;
  if (auto it = options.env.find("USERNAME"); it != options.env.end()) r.user.name = it->second;
  if (options.redaction_inputs) r.redaction = windows_redaction_inputs(options.env);
  return r;
}

GatherResult gather_windows_capture(const GatherOptions& options) {
  GatherResult r;
  auto manifest = windows_capture(options.root, r.error);
  if (!manifest) return r;
  // The machine's own environment, as recorded (and redacted with its answers); nothing is recorded
  // from a replay.
  GatherOptions replay = options;
  replay.env = manifest->environment;
  replay.record = nullptr;
  auto api = replayed_windows(*manifest->windows, manifest->children);
  r = gather_windows(*api, replay);
  r.facts.root = options.root;  // the report names the capture it replays, as a Linux capture's does
  r.replayed = true;
  r.user.name = manifest->user_name;
  return r;
}

std::string windows_capture_platform(const std::string& root) {
  FileBytes text = read_regular_file(root + kManifest, 64 << 20, "a capture's capture.json");
  std::string error;
  auto m = text.bytes ? parse_capture_manifest(*text.bytes, error) : std::nullopt;
  return m ? m->platform : std::string(platform_record(Platform::windows).name);  // gather_windows_capture says what is missing
}

FactSource windows_capture_source() {
  return {Platform::windows, gather_windows_capture, windows_capture_platform};
}

}  // namespace dlready
