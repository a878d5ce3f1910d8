// The rules of aarch64 Linux machines (shared/knowledge/aarch64.md): a Jetson needs the wheels built
// for its JetPack (PyPI's and the SBSA wheels do not run on Orin up to JetPack 6), a Grace system needs
// NVIDIA's open kernel modules, and PyPI's aarch64 torch was a CPU build up to 2.10.
#include "core/text.hpp"
#include "diagnose/catalogue.hpp"
#include "compat/compat.hpp"
#include "diagnose/rules.hpp"

namespace dlready {
namespace {

// A Jetson's integrated GPU by the device tree's SoC (NVIDIA's CUDA GPUs table): Orin 8.7, Thor 11.0
// (CUDA 13's numbering), Xavier 7.2, TX2 6.2, Nano/TX1 5.3.
struct TegraGpu {
  const char* compatible;
  const char* name;
  int major, minor;
};
constexpr TegraGpu kTegraGpus[] = {{"nvidia,tegra234", "Orin", 8, 7},   {"nvidia,tegra264", "Thor", 11, 0},
                                   {"nvidia,tegra194", "Xavier", 7, 2}, {"nvidia,tegra186", "TX2", 6, 2},
                                   {"nvidia,tegra210", "TX1/Nano", 5, 3}};

// Up to JetPack 6 (L4T R36) a Jetson's CUDA is the Tegra build, with L4T's libcuda and nvhost
// devices; from JetPack 7 (Thor, and Orin from 7.2) it is the server (SBSA) build.
bool tegra_cuda(const ArmFacts& a) { return !a.l4t_release || compare_versions(*a.l4t_release, "38") < 0; }

// A torch built for Jetson: a CUDA build that brings no nvidia-* wheels (PyPI's and the SBSA wheels
// depend on them; NVIDIA's and Jetson AI Lab's link JetPack's CUDA).
bool jetson_build(const TorchInstall& t) {
  return t.cuda && t.nvidia_installed.empty() && t.nvidia_pins.empty();
}

void jetson_rules(const Facts& f, const ArmFacts& a, std::vector<Finding>& out) {
  if (!tegra_cuda(a)) return;
  for (const auto& e : f.python.envs)
    for (const auto& t : e.torch) {
      if (jetson_build(t)) continue;
      auto x = make_finding("jetson-needs-jetpack-wheel");
      x.evidence = {"a Jetson" + (a.model ? " (" + *a.model + ")" : std::string()) + ", L4T " + a.l4t_release.value_or("unknown") +
                        (a.jetpack ? " = JetPack " + *a.jetpack : ""),
                    "torch " + t.version.value_or("?") + " in " + t.site_packages + ": " +
                        (!t.cuda ? "a CPU build (PyPI's aarch64 wheel)" : "a server (SBSA) build with nvidia-* wheels")};
      std::string index = jetson_index(a.jetpack.value_or(""));
      x.fix = {index.empty() ? "install NVIDIA's wheel for this JetPack (forum thread \"PyTorch for Jetson\": "
                               "developer.download.nvidia.com/compute/redist/jp/)"
                             : "pip install --force-reinstall --no-deps torch torchvision --index-url " + index,
               "check: python3 -c 'import torch; print(torch.cuda.is_available())'"};
      out.push_back(x);
    }
}

// torch 2.9 and 2.10 warn on GB10 (12.1) that it is outside "(8.0) - (12.0)" although their sm_120
// code runs on it (pytorch#172629, fixed in 2.11 by PR #166185).
void gb10_rules(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  bool gb10 = false;
  for (const auto& g : d.gpu_archs) gb10 |= g.major == 12 && g.minor == 1;
  if (!gb10) return;
  for (const auto& e : f.python.envs)
    for (const auto& t : e.torch) {
      if (!t.cuda || !t.version || compare_versions(*t.version, "2.9") < 0 || compare_versions(*t.version, "2.11") >= 0) continue;
      auto archs = known_arch_list(*t.version, *t.cuda, d.machine);
      if (archs && !arch_list_covers(*archs, 12, 1)) continue;  // no code for it at all: arch-not-supported
      auto x = make_finding("gb10-capability-warning-harmless");
      x.evidence = {"a GB10 (compute capability 12.1) with torch " + *t.version + " in " + t.site_packages};
      x.fix = {"nothing to do: its sm_120 code runs on 12.1; torch>=2.11 no longer prints the warning"};
      out.push_back(x);
    }
}

// A kernel with 64K pages maps no object whose PT_LOAD alignment is below it (torch 1.8 and numpy
// hit it: pytorch#53597, numpy#16677; fixed by linking with -z max-page-size=0x10000).
void page_size_rules(const ArmFacts& a, std::vector<Finding>& out) {
  if (a.misaligned_libraries.empty()) return;
  auto x = make_finding("library-misaligned-for-page-size");
  x.evidence = {"this kernel's pages are " + std::to_string(a.page_size.value_or(0) / 1024) + " KiB"};
  for (const auto& l : a.misaligned_libraries) x.evidence.push_back(l);
  x.fix = {"pip install --upgrade the package each library belongs to (current aarch64 wheels are linked with "
           "-z max-page-size=0x10000)",
           "or rebuild it with LDFLAGS=-Wl,-z,max-page-size=0x10000, or boot the 4K-page kernel flavour"};
  out.push_back(x);
}

// What a library torch's CUDA library needs says which JetPack its wheel was built for
// (shared/knowledge/aarch64.md §4: the JetPack <-> L4T <-> CUDA table; cuSPARSELt is not in JetPack).
std::optional<std::string> jetson_library_origin(const std::string& name) {
  if (starts_with(name, "libcudnn") && ends_with(name, ".so.8")) return "cuDNN 8: a wheel for JetPack 5 or 6.0 (6.1 and 6.2 have cuDNN 9)";
  if (name == "libcudart.so.11.0") return "CUDA 11: a wheel for JetPack 5";
  if (name == "libcudart.so.12") return "CUDA 12: a wheel for JetPack 6";
  if (name == "libcudart.so.13") return "CUDA 13: a wheel for JetPack 7 (Thor)";
  if (starts_with(name, "libcusparseLt")) return "cuSPARSELt, which JetPack does not install";
  if (starts_with(name, "libnvpl_") || starts_with(name, "libcudss")) return "NVPL/cuDSS, which the SBSA wheels leave to pip";
  return std::nullopt;
}

// A wheel for another JetPack: torch's CUDA library needs libraries this L4T does not have
// (ImportError: libcudnn.so.8 with a JetPack 6.0 wheel on 6.2).
void jetson_library_rules(const Facts& f, const ArmFacts& a, std::vector<Finding>& out) {
  for (const auto& b : f.binaries) {
    if (!ends_with(b.binary, "/libtorch_cuda.so") || !b.error.empty()) continue;
    std::vector<std::string> missing;
    bool sparselt = false, nvpl = false;
    for (const auto& lib : b.libraries) {
      if (lib.path) continue;
      auto origin = jetson_library_origin(lib.name);
      missing.push_back(lib.name + ", needed by " + lib.needed_by + ", is not found" +
                        (origin ? " (" + *origin + ")" : ""));
      sparselt |= starts_with(lib.name, "libcusparseLt");
      nvpl |= starts_with(lib.name, "libnvpl_") || starts_with(lib.name, "libcudss");
    }
    if (missing.empty()) continue;
    auto x = make_finding("jetson-wheel-libraries-missing");
    x.evidence = {"a Jetson, L4T " + a.l4t_release.value_or("unknown") + (a.jetpack ? " = JetPack " + *a.jetpack : "")};
    x.evidence.insert(x.evidence.end(), missing.begin(), missing.end());
    std::string index = jetson_index(a.jetpack.value_or(""));
    x.fix = {index.empty() ? "install the torch wheel built for this JetPack (NVIDIA's forum thread \"PyTorch for Jetson\")"
                           : "pip install --force-reinstall --no-deps torch torchvision --index-url " + index +
                                 " (built for this JetPack)"};
    if (sparselt)
      x.fix.push_back("or keep this wheel and install cuSPARSELt for Jetson into /usr/local/cuda/lib64 (NVIDIA's "
                      "libcusparse_lt linux-aarch64 archive, as NVIDIA's PyTorch-for-Jetson guide does)");
    if (nvpl) x.fix.push_back("or keep this wheel: pip install nvpl-blas nvpl-lapack nvidia-cudss-cu13");
    out.push_back(x);
  }
}

// NVIDIA's JetPack builds of torch (2.4.0a0+...nv24.05) were built against NumPy 1: with NumPy 2,
// "A module that was compiled using NumPy 1.x cannot be run in NumPy 2.x" (jetson-containers#1537).
void jetson_numpy_rules(const Facts& f, std::vector<Finding>& out) {
  for (const auto& e : f.python.envs) {
    auto numpy = e.distributions.find("numpy");
    if (numpy == e.distributions.end() || compare_versions(numpy->second, "2") < 0) continue;
    for (const auto& t : e.torch) {
      std::string v = t.version.value_or("");
      if (!jetson_build(t) || (v.find(".nv") == std::string::npos && v.find("a0+") == std::string::npos)) continue;
      auto x = make_finding("jetson-torch-needs-numpy1");
      x.evidence = {"torch " + v + " in " + t.site_packages + ": NVIDIA's JetPack build, compiled against NumPy 1",
                    "numpy " + numpy->second + " in the same environment"};
      x.fix = {e.prefix + "/bin/python -m pip install \"numpy<2\""};
      out.push_back(x);
    }
  }
}

// A Jetson container started without NVIDIA's runtime has neither L4T's libcuda nor the GPU's
// device nodes (nvidia-container-runtime#173); up to JetPack 6 they are mounted in CSV mode.
void jetson_container_rules(const Facts& f, const Derived& d, const ArmFacts& a, std::vector<Finding>& out) {
  if (!d.in_container || !tegra_cuda(a) || (f.libcuda.found() && !a.tegra_device_nodes.empty())) return;
  auto x = make_finding("jetson-container-without-nvidia-runtime");
  x.evidence = {"inside a " + f.os.container.value_or("container") + " on a Jetson (L4T " + a.l4t_release.value_or("?") + ")"};
  if (!f.libcuda.found()) x.evidence.push_back("no libcuda.so.1 (L4T's libcuda.so.1.1)");
  if (a.tegra_device_nodes.empty()) x.evidence.push_back("no /dev/nvmap, /dev/nvhost-ctrl-gpu or /dev/nvgpu/igpu0/ctrl");
  x.fix = {"docker run --runtime nvidia ... (the NVIDIA Container Runtime mounts L4T's libraries and devices)",
           "or make it the default: \"default-runtime\": \"nvidia\" in /etc/docker/daemon.json, then restart docker"};
  out.push_back(x);
}

// On a 64K-page kernel a jemalloc built for 4K pages aborts at start ("<jemalloc>: Unsupported system
// page size"); which page size a copy was built for is not in its files, so the doctor names them.
void jemalloc_rules(const ArmFacts& a, std::vector<Finding>& out) {
  if (a.jemalloc_libraries.empty()) return;
  auto x = make_finding("jemalloc-on-large-pages");
  x.evidence = {"this kernel's pages are " + std::to_string(a.page_size.value_or(0) / 1024) +
                " KiB; a jemalloc built for smaller pages aborts with \"<jemalloc>: Unsupported system page size\""};
  for (const auto& l : a.jemalloc_libraries) x.evidence.push_back("bundled: " + l);
  x.fix = {"if importing its package aborts that way: pip install --upgrade it, or rebuild it with jemalloc "
           "configured --with-lg-page=16, or boot the 4K-page kernel flavour"};
  out.push_back(x);
}

// R550 drivers on GH200 let the page cache fill the GPU's HBM NUMA node, so CUDA runs out of memory
// that looks free (CSCS known issues; fixed in R570).
void hbm_page_cache_rules(const Derived& d, const ArmFacts& a, std::vector<Finding>& out) {
  if (!d.driver_version || compare_versions(*d.driver_version, "570") >= 0) return;
  for (const auto& n : a.memory_only_nodes) {
    if (!n.mem_total || !n.file_pages || *n.file_pages * 4 < *n.mem_total) continue;
    auto x = make_finding("hbm-node-page-cache");
    x.evidence = {"NUMA node " + std::to_string(n.node) + " has memory and no processors (the GPU's HBM): " +
                      human_bytes(*n.file_pages) + " of its " + human_bytes(*n.mem_total) + " hold page cache",
                  "driver " + *d.driver_version + " (the page cache is kept out of it from R570)"};
    x.fix = {"upgrade to an R570 or later open driver",
             "until then, before a run: sync; echo 3 | sudo tee /proc/sys/vm/drop_caches"};
    out.push_back(x);
    return;
  }
}

// The CUDA release whose ptxas first knows a GPU's architecture (CUDA 12.8: sm_100, sm_101, sm_120;
// 12.9: sm_103, sm_121; 13.0: sm_110, Thor's renumbered sm_101).
std::optional<std::string> ptxas_needed(int major, int minor) {
  if (major == 11) return "13.0";
  if ((major == 10 && minor == 3) || (major == 12 && minor == 1)) return "12.9";
  if (major == 10 || major == 12) return "12.8";
  return std::nullopt;
}

void ptxas_rules(const Facts& f, const Derived& d, const ArmFacts& a, std::vector<Finding>& out) {
  for (const auto& p : a.triton_ptxas) {
    if (!p.cuda_release) continue;
    for (const auto& g : d.gpu_archs) {
      auto need = ptxas_needed(g.major, g.minor);
      if (!need || compare_versions(*p.cuda_release, *need) >= 0) continue;
      auto x = make_finding("triton-ptxas-too-old");
      x.evidence = {g.label + " is sm_" + std::to_string(g.major) + std::to_string(g.minor) + ": ptxas needs CUDA " + *need + " or later",
                    p.path + " is from CUDA " + *p.cuda_release +
                        (f.env.get("TRITON_PTXAS_PATH") ? " (TRITON_PTXAS_PATH)" : " (the one torch.compile runs)")};
      x.fix = {"export TRITON_PTXAS_PATH=/usr/local/cuda/bin/ptxas (a CUDA " + *need + " or later toolkit's)",
               "or upgrade torch and triton together (torch>=2.11 ships a CUDA 13 ptxas in torch/bin)"};
      out.push_back(x);
      return;
    }
  }
}

void grace_rules(const Facts& f, const ArmFacts& a, std::vector<Finding>& out) {
  if (!a.grace || !f.kernel.proc_version_line || f.kernel.open_kernel_module) return;
  auto x = make_finding("grace-needs-open-kernel-modules");
  x.evidence = {"a Grace CPU (soc_id " + a.soc_id.value_or("?") + ")", "/proc/driver/nvidia/version: " + *f.kernel.proc_version_line};
  x.fix = {"install the open flavour of the same driver branch (apt install nvidia-open, or the -open packages; the "
           ".run installer's -m=kernel-open), then reboot"};
  out.push_back(x);
}

}  // namespace


bool orin_on_sbsa(const Facts& f) {
  if (!f.arm || !f.arm->tegra || !f.arm->l4t_release || compare_versions(*f.arm->l4t_release, "39") < 0) return false;
  for (const auto& c : f.arm->compatible)
    if (c == "nvidia,tegra234") return true;
  return false;
}

std::optional<Derived::GpuArch> tegra_gpu(const ArmFacts& a) {
  for (const auto& c : a.compatible)
    for (const auto& g : kTegraGpus)
      if (c == g.compatible)
        return Derived::GpuArch{"Jetson " + std::string(g.name) + " (integrated" + (a.model ? ", " + *a.model : std::string()) + ")",
                       g.major, g.minor, "device tree"};
  return std::nullopt;
}

std::vector<std::string> aarch64_cuda_fix() {
  return {"pip install --force-reinstall torch torchvision --index-url https://download.pytorch.org/whl/cu128 "
          "(or cu130 with a driver >= 580.65.06)",
          "or torch>=2.11 from PyPI: its aarch64 wheels are CUDA 13.0 builds (driver >= 580.65.06)"};
}

void rules_arm(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  gb10_rules(f, d, out);
  if (!f.arm) return;
  if (f.arm->tegra) {
    jetson_rules(f, *f.arm, out);
    jetson_library_rules(f, *f.arm, out);
    jetson_numpy_rules(f, out);
    jetson_container_rules(f, d, *f.arm, out);
  }
  grace_rules(f, *f.arm, out);
  page_size_rules(*f.arm, out);
  jemalloc_rules(*f.arm, out);
  hbm_page_cache_rules(d, *f.arm, out);
  ptxas_rules(f, d, *f.arm, out);
}

}  // namespace dlready
