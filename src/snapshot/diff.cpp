#include "snapshot/diff.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <optional>

#include "core/text.hpp"
#include "compat/compat.hpp"

namespace dlready {
namespace {

constexpr std::array<const char*, 7> kAreas{"system", "driver", "gpus", "cuda", "python", "blas", "environment"};

constexpr const char* kTorchKey = "torch ";
constexpr const char* kPythonKey = "python ";

// Merges the row `key_after` (only after) into `key_before` (only before): one row naming both places.
bool merge_rows(std::vector<StackChange>& rows, const std::string& key_before, const std::string& key_after,
                const std::string& label_after) {
  auto find = [&](const std::string& key, bool before_side) {
    for (size_t i = 0; i < rows.size(); ++i)
      if (rows[i].key == key && (before_side ? rows[i].after.empty() : rows[i].before.empty())) return i;
    return rows.size();
  };
  size_t b = find(key_before, true), a = find(key_after, false);
  if (b == rows.size() || a == rows.size()) return false;
  rows[b].key += " | " + label_after;
  rows[b].after = rows[a].after;
  if (rows[b].before == rows[b].after) rows[b].key += " (moved)";
  rows.erase(rows.begin() + static_cast<std::ptrdiff_t>(a));
  return true;
}

// Environments are keyed by where they are (~/venv), which two machines need not share: when one
// torch is found only before and one only after, they are the same job's torch, compared in one row
// that names both places, not two unrelated rows; so are those environments' Pythons.
void pair_lone_torch(std::vector<StackChange>& rows) {
  std::vector<std::string> only_before, only_after;  // the environments' labels
  for (const auto& r : rows) {
    if (r.key.rfind(kTorchKey, 0) != 0) continue;
    if (r.after.empty()) only_before.push_back(r.key.substr(std::string(kTorchKey).size()));
    if (r.before.empty()) only_after.push_back(r.key.substr(std::string(kTorchKey).size()));
  }
  if (only_before.size() != 1 || only_after.size() != 1) return;
  merge_rows(rows, kTorchKey + only_before[0], kTorchKey + only_after[0], only_after[0]);
  merge_rows(rows, kPythonKey + only_before[0], kPythonKey + only_after[0], only_after[0]);
}

// A finding about the environment on one side only (an invalid PYTORCH_CUDA_ALLOC_CONF): the
// difference in the variable is a breakage there, not a matter of taste.
void check_environment_findings(const Stack& on, const std::string& on_name, const Stack& other,
                                std::vector<std::string>& out) {
  for (const auto& f : on.environment_findings) {
    bool shared = false;
    for (const auto& g : other.environment_findings) shared = shared || g.id == f.id;
    if (shared) continue;
    out.push_back(on_name + ": " + f.title + (f.evidence.empty() ? "" : " (" + f.evidence + ")") + " [" + f.id +
                  "]: dlready doctor there says how to fix it");
  }
}

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
    std::vector<StackChange> rows;
    for (const auto& k : keys) {
      std::string x = va.count(k) ? va[k] : "", y = vb.count(k) ? vb[k] : "";
      if (x != y) rows.push_back({area, k, x, y});
    }
    pair_lone_torch(rows);
    out.insert(out.end(), rows.begin(), rows.end());
  }
  return out;
}

void check_torch_against_driver(const Stack& from, const std::string& from_name, const Stack& on,
                                const std::string& on_name, std::vector<std::string>& out) {
  if (on.driver.empty()) return;
  for (const auto& t : from.torch) {
    auto need = t.cuda.empty() ? std::nullopt : min_driver_for_cuda(t.cuda);
    if (!need || compare_versions(on.driver, *need) >= 0) continue;
    out.push_back("torch " + t.shown + " (" + from_name + ") needs an NVIDIA driver >= " + *need + "; " + on_name +
                  " has " + on.driver + ": there torch.cuda.is_available() would be False (install a torch built "
                  "for an older CUDA, or upgrade that driver)");
  }
}

void check_torch_against_gpus(const Stack& from, const std::string& from_name, const Stack& on,
                              const std::string& on_name, std::vector<std::string>& out) {
  for (const auto& t : from.torch) {
    if (t.cuda.empty()) continue;
    auto archs = known_arch_list(t.version, t.cuda);
    if (!archs) continue;  // a release the table does not know: say nothing rather than guess
    for (const auto& g : on.gpus) {
      if (g.cc_major < 0 || arch_list_covers(*archs, g.cc_major, g.cc_minor)) continue;
      out.push_back("torch " + t.shown + " (" + from_name + ") has no GPU code for compute capability " +
                    std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor) + " (" + on_name + "'s " + g.key +
                    ": " + g.name + "; its arch list is " + *archs +
                    "): 'no kernel image is available for execution on the device' there");
    }
  }
}

std::vector<std::string> consequences(const Stack& before, const Stack& after) {
  std::vector<std::string> out;
  check_torch_against_driver(before, "before", after, "after", out);
  check_torch_against_driver(after, "after", before, "before", out);
  check_torch_against_gpus(before, "before", after, "after", out);
  check_torch_against_gpus(after, "after", before, "before", out);
  check_environment_findings(before, "before", after, out);
  check_environment_findings(after, "after", before, out);
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
