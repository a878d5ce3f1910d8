// PYTORCH_CUDA_ALLOC_CONF / PYTORCH_ALLOC_CONF, checked the way c10's ConfigTokenizer reads it:
// PyTorch parses the variable when the CUDA caching allocator starts, and an unknown key or a
// malformed value raises an error at the first CUDA tensor — every CUDA job fails.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>

#include "core/edit_distance.hpp"
#include "core/status.hpp"
#include "core/text.hpp"
#include "diagnose/catalogue.hpp"
#include "diagnose/rules.hpp"
#include "platform/platform_record.hpp"

namespace dlready {
namespace {

enum class Kind { boolean, size, fraction, backend, divisions };
struct Key {
  const char* name;
  Kind kind;
};
// The keys PyTorch 2.11 accepts. Source: torch/include/c10/core/AllocatorConfig.h
// (AcceleratorAllocatorConfig::getMutableKeys) and c10/cuda/CUDAAllocatorConfig.h (getKeys) of
// the torch 2.11.0 wheel; value rules from the same parsers (True/False spelled so, sizes in MB).
constexpr std::array<Key, 16> kKeys{{
    {"max_split_size_mb", Kind::size},
    {"max_non_split_rounding_mb", Kind::size},
    {"large_segment_size_mb", Kind::size},
    {"garbage_collection_threshold", Kind::fraction},
    {"roundup_power2_divisions", Kind::divisions},
    {"expandable_segments", Kind::boolean},
    {"pinned_use_background_threads", Kind::boolean},
    {"backend", Kind::backend},
    {"release_lock_on_cudamalloc", Kind::boolean},
    {"pinned_use_cuda_host_register", Kind::boolean},
    {"release_lock_on_hipmalloc", Kind::boolean},
    {"pinned_use_hip_host_register", Kind::boolean},
    {"graph_capture_record_stream_reuse", Kind::boolean},
    {"pinned_reserve_segment_size_mb", Kind::size},
    {"pinned_num_register_threads", Kind::size},
    {"per_process_memory_fraction", Kind::fraction},
}};

const Key* find_key(const std::string& name) {
  for (const auto& k : kKeys)
    if (name == k.name) return &k;
  return nullptr;
}

const Key* nearest_key(const std::string& name) {
  const Key* best = nullptr;
  size_t best_d = 4;  // a near miss: at most 3 edits
  for (const auto& k : kKeys) {
    size_t d = edit_distance(to_lower(name), k.name);
    if (d < best_d) best = &k, best_d = d;
  }
  return best;
}

bool is_number(const std::string& s, bool fraction) {
  if (s.empty()) return false;
  char* end = nullptr;
  if (fraction) {
    std::strtod(s.c_str(), &end);
  } else {
    if (s[0] == '-' || s[0] == '+') return false;
    std::strtoull(s.c_str(), &end, 10);
  }
  return end && *end == '\0';
}

// Checks one value: valid, or a failure saying what is wrong. `fixed` gets the corrected value if one
// is obvious (true -> True).
Status check_value(const Key& k, const std::string& v, std::string& fixed) {
  fixed = v;
  switch (k.kind) {
    case Kind::boolean:
      if (v == "True" || v == "False") return {};
      if (to_lower(v) == "true" || v == "1") fixed = "True";
      else if (to_lower(v) == "false" || v == "0") fixed = "False";
      else fixed.clear();
      return Status::failure("'" + std::string(k.name) + "' takes True or False (capitalised), not '" + v + "'");
    case Kind::size:
      if (!is_number(v, false)) return Status::failure("'" + std::string(k.name) + "' takes a whole number, not '" + v + "'");
      if (std::string(k.name) == "max_split_size_mb" && std::strtoull(v.c_str(), nullptr, 10) <= 20) {
        fixed.clear();
        return Status::failure("'max_split_size_mb' must be more than 20 (MB), not " + v);
      }
      return {};
    case Kind::fraction: {
      if (!is_number(v, true)) return Status::failure("'" + std::string(k.name) + "' takes a number between 0 and 1, not '" + v + "'");
      double x = std::strtod(v.c_str(), nullptr);
      if (x <= 0 || x >= 1 + (std::string(k.name) == "per_process_memory_fraction" ? 1e-12 : 0)) {
        fixed.clear();
        return Status::failure("'" + std::string(k.name) + "' must be between 0 and 1, not " + v);
      }
      return {};
    }
    case Kind::backend:
      if (v == "native" || v == "cudaMallocAsync") return {};
      fixed = to_lower(v) == "cudamallocasync" ? "cudaMallocAsync" : to_lower(v) == "native" ? "native" : "";
      return Status::failure("'backend' is native or cudaMallocAsync, not '" + v + "'");
    case Kind::divisions:
      if (is_number(v, false) || (v.size() >= 2 && v.front() == '[' && v.back() == ']')) return {};
      return Status::failure("'roundup_power2_divisions' takes a number or a [size:divisions,...] list, not '" + v + "'");
  }
  return {};
}

}  // namespace

AllocConfCheck check_alloc_conf(const std::string& value) {
  AllocConfCheck out;
  // Whitespace is ignored, as c10's tokenizer does; list values keep their brackets.
  std::string s;
  for (char c : value)
    if (!std::isspace(static_cast<unsigned char>(c))) s += c;
  std::vector<std::string> items;
  int depth = 0;
  std::string cur;
  for (char c : s) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) {
      items.push_back(cur), cur.clear();
      continue;
    }
    cur += c;
  }
  items.push_back(cur);
  if (depth != 0) out.problems.push_back("a '[' list is not closed");
  bool fixable = depth == 0;
  std::vector<std::string> fixed_items;
  for (const auto& item : items) {
    if (item.empty()) continue;  // "a:b," — an empty item is harmless
    auto colon = item.find(':');
    std::string key = item.substr(0, colon), val = colon == std::string::npos ? "" : item.substr(colon + 1);
    if (colon == std::string::npos) {
      auto eq = item.find('=');
      if (eq != std::string::npos) {
        key = item.substr(0, eq), val = item.substr(eq + 1);
        out.problems.push_back("'" + item + "' uses '=': write " + key + ":" + val);
      } else {
        out.problems.push_back("'" + item + "' has no value: write key:value");
        fixable = false;
        continue;
      }
    }
    const Key* k = find_key(key);
    if (!k) {
      k = nearest_key(key);
      out.problems.push_back("unknown key '" + key + "'" + (k ? " (did you mean '" + std::string(k->name) + "'?)" : ""));
      if (!k) {
        fixable = false;
        continue;
      }
    }
    std::string fixed_val;
    if (auto st = check_value(*k, val, fixed_val); !st) {
      out.problems.push_back(st.error());
      if (fixed_val.empty()) fixable = false;
    }
    fixed_items.push_back(std::string(k->name) + ":" + fixed_val);
  }
  if (fixable && !out.problems.empty()) out.corrected = join(fixed_items, ",");
  return out;
}

namespace {

// expandable_segments:True beside max_split_size_mb or garbage_collection_threshold: from torch 2.1
// (expandable segments' first release) to 2.4 the allocator's freeing paths released blocks of an
// expandable segment and asserted ("!block->expandable_segment_ INTERNAL ASSERT FAILED",
// pytorch#119452, #123548) when memory ran short; fixed in 2.5 (pytorch#134338). The setting is
// valid, its meaning is not: the corrected value keeps expandable segments and drops the others.
void alloc_conf_conflict_rule(const Facts& f, const char* var, const std::string& value, std::vector<Finding>& out) {
  const TorchInstall* t = primary_torch(f);
  if (!t || !t->version || compare_versions(*t->version, "2.1") < 0 || compare_versions(*t->version, "2.5") >= 0) return;
  bool expandable = false;
  std::vector<std::string> keep, dropped;
  for (const auto& item : split(value, ',')) {
    auto colon = item.find(':');
    std::string key = trim(item.substr(0, colon)), val = colon == std::string::npos ? "" : trim(item.substr(colon + 1));
    if (key == "expandable_segments" && to_lower(val) == "true") expandable = true;
    (key == "max_split_size_mb" || key == "garbage_collection_threshold" ? dropped : keep).push_back(trim(item));
  }
  if (!expandable || dropped.empty()) return;
  auto x = make_finding("alloc-conf-conflict");
  x.evidence = {std::string(var) + "=\"" + value + "\"",
                "torch " + *t->version + ": with expandable_segments:True, " + join(dropped, " and ") +
                    " makes the allocator assert when memory runs short (fixed in torch 2.5)"};
  x.fix = {set_variable(platform_of(f), var, join(keep, ",")),
           "or keep both with torch 2.5 or later, where expandable segments ignore max_split_size_mb"};
  out.push_back(x);
}

}  // namespace

void alloc_conf_rules(const Facts& f, std::vector<Finding>& out) {
  for (const char* var : {"PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF"}) {
    auto v = f.env.get(var);
    if (!v) continue;
    auto c = check_alloc_conf(*v);
    if (c.problems.empty()) {
      if (platform_of(f).expandable_segments) alloc_conf_conflict_rule(f, var, *v, out);
      continue;
    }
    auto x = make_finding("alloc-conf-invalid");
    x.evidence.push_back(std::string(var) + "=\"" + *v + "\"");
    for (const auto& p : c.problems) x.evidence.push_back(p);
    const PlatformRecord& shell = platform_of(f);
    x.fix = {c.corrected ? set_variable(shell, var, *c.corrected)
                         : unset_variable(shell, var) + " (or set valid key:value pairs, e.g. expandable_segments:True)"};
    out.push_back(x);
  }
}

}  // namespace dlready
