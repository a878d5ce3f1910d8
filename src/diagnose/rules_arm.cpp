// The rules of aarch64 Linux machines (shared/knowledge/aarch64.md): a Jetson needs the wheels built
// for its JetPack (PyPI's and the SBSA wheels do not run on Orin up to JetPack 6), a Grace system needs
// NVIDIA's open kernel modules, and PyPI's aarch64 torch was a CPU build up to 2.10.
#include "core/text.hpp"
#include "diagnose/catalogue.hpp"
#include "diagnose/compat.hpp"
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

// A torch built for Jetson: a CUDA build that brings no nvidia-* wheels (PyPI's and the SBSA wheels
// depend on them; NVIDIA's and Jetson AI Lab's link JetPack's CUDA).
bool jetson_build(const TorchInstall& t) {
  return t.cuda && t.nvidia_installed.empty() && t.nvidia_pins.empty();
}

void jetson_rules(const Facts& f, const ArmFacts& a, std::vector<Finding>& out) {
  // Up to JetPack 6 (L4T R36) Orin's CUDA is the Tegra build; Thor (JetPack 7) runs SBSA wheels.
  bool tegra_cuda = !a.l4t_release || compare_versions(*a.l4t_release, "38") < 0;
  if (!tegra_cuda) return;
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

void grace_rules(const Facts& f, const ArmFacts& a, std::vector<Finding>& out) {
  if (!a.grace || !f.kernel.proc_version_line || f.kernel.open_kernel_module) return;
  auto x = make_finding("grace-needs-open-kernel-modules");
  x.evidence = {"a Grace CPU (soc_id " + a.soc_id.value_or("?") + ")", "/proc/driver/nvidia/version: " + *f.kernel.proc_version_line};
  x.fix = {"install the open flavour of the same driver branch (apt install nvidia-open, or the -open packages; the "
           ".run installer's -m=kernel-open), then reboot"};
  out.push_back(x);
}

}  // namespace

std::string jetson_index(const std::string& jetpack) {
  return starts_with(jetpack, "6") ? "https://pypi.jetson-ai-lab.io/jp6/cu126" : "";
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
  if (f.arm->tegra) jetson_rules(f, *f.arm, out);
  grace_rules(f, *f.arm, out);
  page_size_rules(*f.arm, out);
}

}  // namespace dlready
