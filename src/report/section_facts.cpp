#include <cstdio>

#include "core/path_text.hpp"
#include "core/text.hpp"
#include "compat/compat.hpp"
#include "diagnose/gpu_code.hpp"
#include "diagnose/rules.hpp"
#include "platform/platform_record.hpp"
#include "report/render.hpp"

namespace dlready {
namespace {

std::string lib_line(const LibraryLocation& l) {
  if (!l.found()) return l.soname + ": not found";
  std::string s = l.soname + " -> " + l.real_path.value_or(*l.path) + " (" + l.found_via + ")";
  if (l.stub) s += " [stub]";
  if (l.compat) s += " [compat]";
  if (l.wsl) s += " [WSL]";
  return s;
}

std::string toolkit_line(const CudaToolkit& tk) {
  return "toolkit " + tk.version.value_or("?") + " at " + tk.path + (tk.has_nvcc ? " (nvcc)" : "");
}

void facts_system(const Facts& f, std::vector<std::string>& out) {
  std::string l = f.os.pretty_name.value_or("unknown OS") + ", kernel " + f.os.kernel.value_or("?") + ", glibc " +
                  f.os.glibc.value_or("?") + ", libstdc++ " + f.os.libstdcxx.value_or("?");
  out.push_back(l);
  std::string m;
  if (f.os.cpu_count) m += std::to_string(*f.os.cpu_count) + " CPUs";
  if (f.os.cpu_model) m += " (" + *f.os.cpu_model + ")";
  if (f.os.memory_bytes) m += ", " + human_bytes(*f.os.memory_bytes) + " RAM";
  if (f.os.shm_bytes) m += ", /dev/shm " + human_bytes(*f.os.shm_bytes);
  if (f.os.load.load_1min) {
    char load[64];
    std::snprintf(load, sizeof load, ", load average %.2f", *f.os.load.load_1min);
    m += load;
  }
  if (!m.empty()) out.push_back(m);
  if (f.os.container) out.push_back("container: " + *f.os.container);
  if (f.os.virtual_machine) out.push_back("virtual machine: " + *f.os.virtual_machine);
  if (f.os.wsl) out.push_back(std::string("WSL2: /dev/dxg ") + (f.os.wsl_dxg ? "yes" : "no") + ", /usr/lib/wsl/lib/libcuda.so.1 " + (f.os.wsl_libcuda ? "yes" : "no"));
}

void facts_gpu(const Facts& f, std::vector<std::string>& out) {
  for (const auto& g : f.pci.nvidia) {
    if (!g.is_gpu) continue;
    std::string l = g.address + " " + pci_gpu_name(g.name, g.vendor_id, g.device_id) + " [10de:" + g.device_id + "]";
    for (const auto& dev : f.driver.devices)  // the name CUDA (and --binary's check) gives the same GPU
      if (dev.pci_bus_id && same_pci_address(*dev.pci_bus_id, g.address)) l += " = cuda:" + std::to_string(dev.index);
    l += ", driver " + g.driver.value_or("none");
    if (auto k = gpu_by_pci_id(g.vendor_id, g.device_id))
      l += ", sm_" + std::to_string(k->cc_major) + std::to_string(k->cc_minor);
    if (g.link_width && g.max_link_width)
      l += ", PCIe x" + std::to_string(*g.link_width) + "/x" + std::to_string(*g.max_link_width) + " " + g.link_speed.value_or("");
    out.push_back(l);
  }
  if (out.empty()) out.push_back(f.pci.sysfs_readable ? "no NVIDIA GPU on the PCI bus" : "PCI sysfs not readable");
}

void facts_kernel_driver(const Facts& f, std::vector<std::string>& out) {
  if (f.kernel.loaded_version)
    out.push_back(std::string("nvidia ") + *f.kernel.loaded_version + (f.kernel.open_kernel_module ? " (open kernel module)" : "") +
                  ", nvidia_uvm " + (f.kernel.nvidia_uvm_loaded ? "loaded" : "not loaded"));
  else
    out.push_back("nvidia module not loaded");
  if (f.kernel.module_file)
    out.push_back("installed: " + *f.kernel.module_file + (f.kernel.module_file_version ? " (" + *f.kernel.module_file_version + ")" : ""));
  if (f.kernel.nouveau_loaded) out.push_back("nouveau loaded");
}

void facts_device_nodes(const Facts& f, std::vector<std::string>& out) {
  std::vector<std::string> present;
  for (const auto& n : f.nodes.nodes)
    if (n.exists) present.push_back(n.path + (n.accessible ? "" : " (no access)"));
  out.push_back(present.empty() ? "no /dev/nvidia* nodes" : join(present, ", ") + " for " + f.nodes.checked_user);
  for (const auto& n : f.nodes.nodes) {
    if (n.path != "/dev/nvidiactl" || !n.exists || !n.mode || n.mode->size() != 10) continue;
    if (n.mode->compare(7, 2, "rw") == 0) {
      out.push_back("GPUs usable by every local user (" + *n.mode + ")");
    } else {
      std::string who = "GPUs usable by " + n.owner.value_or("?");
      if (n.mode->compare(4, 2, "rw") == 0)
        who += " and group " + n.group.value_or("?") +
               (f.nodes.group_members.empty() ? " (no members)" : " (" + join(f.nodes.group_members, ", ") + ")");
      out.push_back(who + ", and root");
    }
  }
}

void facts_driver_library(const Facts& f, std::vector<std::string>& out) {
  out.push_back(lib_line(f.libcuda));
  out.push_back(lib_line(f.libnvml));
}

// GB10 (and a Jetson) share the machine's memory: NVML answers NOT_SUPPORTED for it (a documented
// known issue, not a fault), so the memory shown is the machine's.
bool unified_memory(const Facts& f, int index) {
  if (!f.arm || !f.os.memory_bytes || f.nvml.status != ProbeStatus::ok) return false;
  for (const auto& g : f.nvml.devices)
    if (g.index == index) return !g.memory_total;
  return false;
}

void facts_driver_api(const Facts& f, std::vector<std::string>& out) {
  if (f.driver.status == ProbeStatus::not_run) {
    std::string why = !f.libcuda.found() ? "no libcuda.so.1" : f.driver.detail;
    out.push_back("cuInit: not run" + (why.empty() ? std::string() : " (" + why + ")"));
  } else {
    std::string l = std::string("cuInit: ") + to_string(f.driver.status);
    if (f.driver.init_result) l += ", returned " + std::to_string(*f.driver.init_result) + " " + f.driver.init_error_name.value_or("");
    if (f.driver.driver_version) l += ", driver CUDA " + cuda_version_string(*f.driver.driver_version);
    if (!f.driver.detail.empty()) l += " (" + f.driver.detail + ")";
    out.push_back(l);
  }
  for (const auto& d : f.driver.devices) {
    std::string l = "cuda:" + std::to_string(d.index) + " " + d.name.value_or("?");
    if (d.cc_major && d.cc_minor) l += ", sm_" + std::to_string(*d.cc_major) + std::to_string(*d.cc_minor);
    if (unified_memory(f, d.index)) l += ", " + human_bytes(*f.os.memory_bytes) + " unified memory (the machine's, /proc/meminfo)";
    else if (d.memory_bytes) l += ", " + human_bytes(*d.memory_bytes);
    if (d.sm_count) l += ", " + std::to_string(*d.sm_count) + " SMs";
    if (d.pci_bus_id) l += ", " + *d.pci_bus_id;
    out.push_back(l);
  }
  if (f.nvml.status != ProbeStatus::not_run) {
    std::string l = std::string("NVML: ") + to_string(f.nvml.status);
    if (f.nvml.init_result) l += ", init returned " + std::to_string(*f.nvml.init_result);
    if (f.nvml.driver_version) l += ", driver " + *f.nvml.driver_version;
    if (f.nvml.device_count) l += ", " + std::to_string(*f.nvml.device_count) + " device(s)";
    out.push_back(l);
  }
}

void facts_environment(const Facts& f, std::vector<std::string>& out) {
  for (const char* k : {"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "NVIDIA_VISIBLE_DEVICES",
                        "NVIDIA_DRIVER_CAPABILITIES", "LD_LIBRARY_PATH", "LD_PRELOAD", "PYTORCH_CUDA_ALLOC_CONF",
                        "CUDA_HOME", "CUDA_PATH", "CONDA_PREFIX", "VIRTUAL_ENV", "NCCL_SOCKET_IFNAME",
                        "GLOO_SOCKET_IFNAME", "CUDA_CACHE_DISABLE", "CUDA_CACHE_MAXSIZE"})
    if (auto v = f.env.get(k)) out.push_back(std::string(k) + "=" + *v);
  if (out.empty()) out.push_back("no CUDA-related variables set");
}

// The GPU code of each scanned library (--binary, PyTorch's libtorch_cuda.so), and per GPU whether it runs.
void facts_gpu_code(const Facts& f, std::vector<std::string>& out) {
  for (const auto& v : gpu_code_views(f)) {
    out.push_back(path_basename(v.library) + (v.owner.empty() ? "" : " (" + v.owner + ")") + ": " + v.summary +
                  " [" + v.library + "]");
    for (const auto& g : v.gpus)
      out.push_back("  " + g.gpu + " (" + g.arch + "): " + (g.runs ? "runs: " : "cannot run it: ") + g.how);
  }
}

void facts_cuda_libraries(const Facts& f, std::vector<std::string>& out) {
  for (const auto& tk : f.cuda_libs.toolkits) out.push_back(toolkit_line(tk));
  for (const auto& l : f.cuda_libs.libraries) out.push_back(lib_line(l));
  facts_gpu_code(f, out);
  for (const auto& b : f.binaries) {
    size_t missing = 0;
    for (const auto& l : b.libraries) missing += l.path ? 0 : 1;
    out.push_back(b.binary + ": " + std::to_string(b.libraries.size()) + " libraries resolved like ld.so" +
                  (missing ? ", " + std::to_string(missing) + " not found" : ""));
  }
  if (out.empty()) out.push_back("no CUDA toolkit or libraries found by the loader");
}

// Each torch found; `cuda_words`: with its CUDA build or "(CPU)" (a Mac's torch has no CUDA to name).
void torch_lines(const Facts& f, std::vector<std::string>& out, bool cuda_words) {
  for (const auto& e : f.python.envs)
    for (const auto& t : e.torch)
      out.push_back("torch " + t.version.value_or("?") +
                    (!cuda_words ? "" : t.cuda ? " (CUDA " + *t.cuda + ")" : " (CPU)") + " in " + t.site_packages +
                    (e.active ? " [active]" : ""));
  if (out.empty()) out.push_back("no PyTorch in " + std::to_string(f.python.envs.size()) + " Python environment(s)");
}

// What the shell's `python` runs, and what that environment holds (issue 59 item 8).
void python_on_path_line(const Facts& f, std::vector<std::string>& out) {
  if (!f.python.python_on_path) return;
  std::string holds;
  for (const auto& e : f.python.envs)
    if (f.python.python_on_path_prefix && e.prefix == *f.python.python_on_path_prefix)
      holds = e.torch.empty() ? ": no torch there" : ": torch " + e.torch[0].version.value_or("?") + (e.active ? " [active]" : "");
  const std::string via = f.python.python_on_path_via && f.python.python_on_path_prefix
                              ? " -> " + *f.python.python_on_path_prefix + " (" + *f.python.python_on_path_via + ")"
                              : "";
  out.push_back("python on PATH: " + *f.python.python_on_path + via + holds);
}

void facts_pytorch(const Facts& f, std::vector<std::string>& out) {
  torch_lines(f, out, true);
  python_on_path_line(f, out);
}

void facts_libtorch(const Facts& f, std::vector<std::string>& out) {
  for (const auto& l : f.libtorch.installs)
    out.push_back(l.path + " " + l.build_version.value_or("?") +
                  (l.cxx11_abi ? (*l.cxx11_abi ? ", C++11 ABI" : ", pre-C++11 ABI") : ""));
  if (out.empty()) out.push_back("no LibTorch install found");
  const auto& m = f.own_module;
  if (m.libtorch_dir)
    out.push_back("dlready's module " + m.path.value_or("?") + " -> LibTorch " + m.torch_version.value_or("?") + " in " +
                  *m.libtorch_dir);
  else if (m.path || !m.error.empty())
    out.push_back("dlready's module: " + m.error);
}

void facts_cpu_math(const Facts& f, std::vector<std::string>& out) {
  out.push_back(lib_line(f.blas.library) + (f.blas.implementation ? " = " + *f.blas.implementation : ""));
  for (const auto& c : f.blas.consumers)
    out.push_back(c.name + " (" + c.where + "): " +
                  (c.system_blas ? "libblas.so.3 (the system BLAS above)"
                   : c.blas == "linked in" ? "its own BLAS, linked into " + path_basename(c.library)
                                           : c.blas));
}

// Windows (src/windows/): its own words for what its probes read; what they do not read yet says so.
void windows_system(const Facts& f, std::vector<std::string>& out) {
  out.push_back(f.os.pretty_name.value_or("Windows") + (f.os.kernel ? ", version " + *f.os.kernel : "") +
                (f.os.arch ? ", " + *f.os.arch : ""));
  std::string m;
  if (f.os.cpu_count) m += std::to_string(*f.os.cpu_count) + " CPUs";
  if (f.os.cpu_model) m += " (" + *f.os.cpu_model + ")";
  if (f.os.memory_bytes) m += ", " + human_bytes(*f.os.memory_bytes) + " RAM";
  if (!m.empty()) out.push_back(m);
}

void windows_gpu(const Facts& f, std::vector<std::string>& out) {
  for (const auto* list : {&f.pci.nvidia, &f.pci.other_gpus})
    for (const auto& g : *list)
      out.push_back(g.address + ": " + g.name.value_or("?") + " [" + g.vendor_id + ":" + g.device_id + "]" +
                    (g.driver ? ", driver " + *g.driver : ", no driver") +
                    (g.bar_sizes.empty() ? "" : ", " + human_bytes(g.bar_sizes.front()) + " dedicated memory"));
  if (out.empty()) out.push_back("no display adapter with a PCI id");
  if (!f.windows) return;
  const auto& w = *f.windows;
  for (const auto& a : w.dxgi_adapters)
    out.push_back("DXGI: " + a.name + " [" + a.vendor_id + ":" + a.device_id + "]" + (a.software ? ", software" : "") +
                  (a.luid == w.dxgi_high_performance ? ", Windows' high-performance GPU" : "") +
                  (a.luid == w.dxgi_minimum_power ? ", Windows' power-saving GPU" : ""));
  if (w.dxgi_error) out.push_back("DXGI: " + *w.dxgi_error);
  for (const auto& [program, choice] : w.python_gpu_preferences) out.push_back("Graphics setting: " + program + " → " + choice);
  if (f.pci.nvidia.empty()) return;
  out.push_back(w.tdr_level == 0 ? "GPU watchdog (TDR): off (TdrLevel 0)"
                : w.tdr_delay  ? "GPU watchdog (TDR): " + std::to_string(*w.tdr_delay) + " s (TdrDelay)"
                               : "GPU watchdog (TDR): 2 s (Windows' default)");
}

void windows_driver_library(const Facts& f, std::vector<std::string>& out) {
  for (const auto* l : {&f.libcuda, &f.libnvml})
    out.push_back(l->found() ? l->soname + " -> " + *l->path + (l->version ? " (" + *l->version + ")" : "")
                             : l->soname + ": not in " + join(l->searched, ", "));
  static const char* const kModels[] = {"WDDM (a display device)", "TCC (a compute device)", "MCDM (a compute device)"};
  for (const auto& g : f.nvml.devices)
    if (g.driver_model && *g.driver_model >= 0 && *g.driver_model <= 2)
      out.push_back("GPU " + std::to_string(g.index) + " " + g.name.value_or("") + ": driver model " + kModels[*g.driver_model]);
}

// A wheel carries its own CUDA runtime: a toolkit matters only for building extensions.
void windows_toolkits(const Facts& f, std::vector<std::string>& out) {
  for (const auto& tk : f.cuda_libs.toolkits) out.push_back(toolkit_line(tk));
  if (out.empty())
    out.push_back("no CUDA toolkit (CUDA_PATH unset): none is needed to run PyTorch, whose wheel carries its own CUDA");
}

// PyTorch as on Linux, then what `import torch` would load: torch\lib's DLLs read as files.
void windows_pytorch(const Facts& f, std::vector<std::string>& out) {
  facts_pytorch(f, out);
  if (!f.windows) return;
  for (const auto& c : f.windows->torch_dlls) {
    std::vector<std::string> missing;
    for (const auto& m : c.missing) missing.push_back(m.name);
    out.push_back(c.torch_lib + ": " + std::to_string(c.dlls_read) + " DLLs read" +
                  (c.torch_machine ? " (" + *c.torch_machine + ")" : "") +
                  (missing.empty() ? ", every import found" : ", missing: " + join(missing, ", ")) +
                  (c.python_exe ? "; " + *c.python_exe + (c.python_machine ? " (" + *c.python_machine + ")" : "") : ""));
  }
}

std::vector<std::string> windows_section(const Facts& f, const std::string& section) {
  std::vector<std::string> out;
  if (section == "system") windows_system(f, out);
  else if (section == "gpu") windows_gpu(f, out);
  else if (section == "driver-library") windows_driver_library(f, out);
  else if (section == "environment") facts_environment(f, out);
  else if (section == "pytorch") windows_pytorch(f, out);
  else if (section == "cuda-libraries") windows_toolkits(f, out);
  else if (section == "driver-api" && f.driver.status != ProbeStatus::not_run) facts_driver_api(f, out);
  else if (section == "driver-api")
    out.push_back(f.libcuda.found() ? "cuInit: not run (--no-driver-probe)" : "cuInit: not run (no nvcuda.dll)");
  else if (section == "kernel-driver" || section == "device-nodes") out.push_back("not on Windows");
  else out.push_back("not read by the Windows doctor yet");
  return out;
}

void macos_system(const Facts& f, std::vector<std::string>& out) {
  out.push_back(f.os.pretty_name.value_or("macOS") + (f.os.kernel ? ", " + *f.os.kernel : "") +
                (f.os.arch ? ", " + *f.os.arch : ""));
  if (!f.macos) return;
  const auto& m = *f.macos;
  std::string hw;
  if (m.model) hw += *m.model;
  if (m.cpu_brand) hw += (hw.empty() ? "" : ", ") + *m.cpu_brand;
  if (m.virtual_machine == true) hw += (hw.empty() ? "" : ", ") + std::string("virtual machine");
  if (m.translated == true) hw += (hw.empty() ? "" : ", ") + std::string("this shell runs under Rosetta");
  if (!hw.empty()) out.push_back(hw);
  if (!m.apple_silicon) out.push_back("processor, Rosetta and VM: unknown (no sysctl answers in this root)");
  if (!m.metal) {
    out.push_back("Metal: not asked (--no-driver-probe, or a root without the Metal probe's record)");
    return;
  }
  if (m.metal->error) out.push_back("Metal: " + *m.metal->error);
  for (const auto& d : m.metal->devices)
    out.push_back("Metal device: " + d.name + (d.low_power ? ", low power" : "") + (d.mac2 ? ", Mac2 family" : ", not Mac2"));
  if (m.metal->devices.empty() && !m.metal->error) out.push_back("Metal: no device (MTLCopyAllDevices is empty)");
}

void macos_pytorch(const Facts& f, std::vector<std::string>& out) {
  torch_lines(f, out, false);
  python_on_path_line(f, out);
  if (!f.macos) return;
  for (const auto& p : f.macos->pythons)
    if (p.interpreter) out.push_back(*p.interpreter + ": " + (p.cpus.empty() ? p.error.value_or("?") : join(p.cpus, ", ")));
  for (const auto& c : f.macos->torch)
    if (c.library)
      out.push_back(*c.library + ": " + (c.error ? *c.error : join(c.cpus, ", ") + ", macOS " + c.minos.value_or("?") +
                                                                   "+, MPS " + (c.mps_built == true ? "built" : "not built")));
  for (const auto& i : f.macos->pip_indexes) out.push_back("pip index: " + i);
}

// The variables a Mac's PyTorch and pip read.
void macos_environment(const Facts& f, std::vector<std::string>& out) {
  for (const char* k : {"PYTORCH_ENABLE_MPS_FALLBACK", "PYTORCH_MPS_HIGH_WATERMARK_RATIO", "PYTORCH_MPS_LOW_WATERMARK_RATIO",
                        "CONDA_PREFIX", "VIRTUAL_ENV", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "UV_INDEX_URL",
                        "UV_EXTRA_INDEX_URL", "UV_DEFAULT_INDEX", "OMP_NUM_THREADS"})
    if (auto v = f.env.get(k)) out.push_back(std::string(k) + "=" + *v);
  if (out.empty()) out.push_back("no MPS- or pip-related variables set");
}

std::vector<std::string> macos_section(const Facts& f, const std::string& section) {
  std::vector<std::string> out;
  if (section == "system") macos_system(f, out);
  else if (section == "environment") macos_environment(f, out);
  else if (section == "pytorch") macos_pytorch(f, out);
  else out.push_back("not on macOS (no NVIDIA GPU, no CUDA: PyTorch's GPU here is MPS)");
  return out;
}

}  // namespace

std::vector<std::string> section_facts(const Facts& f, const std::string& section) {
  switch (platform_of(f).sections) {
    case SectionStyle::windows: return windows_section(f, section);
    case SectionStyle::macos: return macos_section(f, section);
    case SectionStyle::linux: break;
  }
  using Lines = void (*)(const Facts&, std::vector<std::string>&);
  static const std::pair<const char*, Lines> kSections[] = {
      {"system", facts_system},
      {"gpu", facts_gpu},
      {"kernel-driver", facts_kernel_driver},
      {"device-nodes", facts_device_nodes},
      {"driver-library", facts_driver_library},
      {"driver-api", facts_driver_api},
      {"environment", facts_environment},
      {"cuda-libraries", facts_cuda_libraries},
      {"pytorch", facts_pytorch},
      {"libtorch", facts_libtorch},
      {"cpu-math", facts_cpu_math},
  };
  std::vector<std::string> out;
  for (const auto& [name, lines] : kSections)
    if (section == name) lines(f, out);
  return out;
}

}  // namespace dlready
