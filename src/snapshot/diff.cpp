#include "snapshot/diff.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <optional>

#include "core/text.hpp"
#include "diagnose/compat.hpp"

namespace dlready {
namespace {

constexpr std::array<const char*, 7> kAreas{"system", "driver", "gpus", "cuda", "python", "blas", "environment"};

}  // namespace

std::vector<StackChange> diff_stacks(const Stack& a, const Stack& b) {
  std::vector<StackChange> out;
  for (const char* area : kAreas) {
    std::vector<std::string> keys;
    std::map<std::string, std::string> va, vb;
    for (const auto& [items, values] : {std::pair{&a.items, &va}, std::pair{&b.items, &vb}})
      for (const auto& i : *items) {
        if (i.area != area) continue;
        if (std::find(keys.begin(), keys.end(), i.key) == keys.end()) keys.push_back(i.key);
        (*values)[i.key] = i.value;
      }
    for (const auto& k : keys) {
      std::string x = va.count(k) ? va[k] : "", y = vb.count(k) ? vb[k] : "";
      if (x != y) out.push_back({area, k, x, y});
    }
  }
  return out;
}

namespace {

// The driver version a stack reports (the loaded kernel module, else NVML's).
std::string driver_of(const Stack& s) {
  std::string nvml;
  for (const auto& i : s.items) {
    if (i.area != "driver") continue;
    if (i.key == "kernel module") return i.value;
    if (i.key == "NVML driver version") nvml = i.value;
  }
  return nvml;
}

// "2.11.0+cu130 (CUDA 13.0)" -> "13.0"
std::string cuda_of(const std::string& torch_value) {
  auto at = torch_value.rfind("(CUDA ");
  if (at == std::string::npos || torch_value.back() != ')') return "";
  return torch_value.substr(at + 6, torch_value.size() - at - 7);
}

void check_torch_against_driver(const Stack& from, const char* from_name, const Stack& on, const char* on_name,
                                std::vector<std::string>& out) {
  std::string driver = driver_of(on);
  if (driver.empty()) return;
  for (const auto& i : from.items) {
    if (i.area != "python" || i.key.rfind("torch ", 0) != 0) continue;
    std::string cuda = cuda_of(i.value);
    auto need = cuda.empty() ? std::nullopt : min_driver_for_cuda(cuda);
    if (!need || compare_versions(driver, *need) >= 0) continue;
    out.push_back("torch " + i.value + " (" + from_name + ") needs an NVIDIA driver >= " + *need + "; " + on_name +
                  " has " + driver + ": there torch.cuda.is_available() would be False (install a torch built "
                  "for an older CUDA, or upgrade that driver)");
  }
}

// "NVIDIA H100, compute capability 9.0, 79.6 GiB" -> {9, 0}
std::optional<std::pair<int, int>> compute_capability_of(const std::string& gpu_value) {
  const std::string tag = "compute capability ";
  auto at = gpu_value.find(tag);
  if (at == std::string::npos) return std::nullopt;
  int major = 0, minor = 0;
  if (std::sscanf(gpu_value.c_str() + at + tag.size(), "%d.%d", &major, &minor) != 2) return std::nullopt;
  return std::pair{major, minor};
}

// "2.5.1+cu124 (CUDA 12.4)" -> "2.5.1+cu124"
std::string torch_version_of(const std::string& torch_value) { return torch_value.substr(0, torch_value.find(' ')); }

void check_torch_against_gpus(const Stack& from, const char* from_name, const Stack& on, const char* on_name,
                              std::vector<std::string>& out) {
  for (const auto& t : from.items) {
    if (t.area != "python" || t.key.rfind("torch ", 0) != 0) continue;
    std::string cuda = cuda_of(t.value);
    if (cuda.empty()) continue;
    auto archs = known_arch_list(torch_version_of(t.value), cuda);
    if (!archs) continue;  // a release the table does not know: say nothing rather than guess
    for (const auto& g : on.items) {
      if (g.area != "gpus" || g.key.rfind("gpu ", 0) != 0) continue;
      auto cc = compute_capability_of(g.value);
      if (!cc || arch_list_covers(*archs, cc->first, cc->second)) continue;
      out.push_back("torch " + t.value + " (" + from_name + ") has no GPU code for compute capability " +
                    std::to_string(cc->first) + "." + std::to_string(cc->second) + " (" + on_name + "'s " + g.key +
                    ": " + g.value.substr(0, g.value.find(',')) + "; its arch list is " + *archs +
                    "): 'no kernel image is available for execution on the device' there");
    }
  }
}

}  // namespace

std::vector<std::string> consequences(const Stack& before, const Stack& after) {
  std::vector<std::string> out;
  check_torch_against_driver(before, "before", after, "after", out);
  check_torch_against_driver(after, "after", before, "before", out);
  check_torch_against_gpus(before, "before", after, "after", out);
  check_torch_against_gpus(after, "after", before, "before", out);
  return out;
}

std::string why_it_matters(const std::string& area) {
  if (area == "system")
    return "binary wheels need a minimum glibc/libstdc++; less memory or /dev/shm changes batch sizes and "
           "DataLoader workers";
  if (area == "driver")
    return "the driver bounds the CUDA versions that run: a CUDA 13 PyTorch needs >= 580.65.06, CUDA 12.x "
           ">= 525.60.13; an older driver makes torch.cuda.is_available() False";
  if (area == "gpus")
    return "another compute capability needs kernels in the build's arch list ('no kernel image is "
           "available'); other memory changes what batch fits; other GPUs give other speed and TF32/bf16 support";
  if (area == "cuda")
    return "other cuDNN/cuBLAS/NCCL versions choose other kernels: other speed, slightly other numerics, "
           "other collective behaviour";
  if (area == "python")
    return "another PyTorch version or CUDA variant changes defaults, kernels and numerics; a CPU-only build "
           "on one side means no GPU at all";
  if (area == "blas") return "a reference BLAS makes CPU matmul 10-100x slower than OpenBLAS/MKL";
  if (area == "environment")
    return "CUDA_VISIBLE_DEVICES, PYTORCH_CUDA_ALLOC_CONF, NCCL_*, OMP_NUM_THREADS and LD_* change which GPUs, "
           "how memory is managed, how ranks talk and which libraries load";
  return "";
}

}  // namespace dlready
