#include "compat/compat.hpp"

#include <cctype>

#include <algorithm>

#include "core/text.hpp"

namespace dlready {

extern const char* const kCudaDriverTsv;

namespace {
// Rows of data/cuda_driver.tsv of one kind: {key, value, source}.
std::vector<std::vector<std::string>> cuda_driver_rows(const std::string& kind) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& line : lines(kCudaDriverTsv)) {
    if (line.empty() || line[0] == '#') continue;
    auto f = split(line, '\t', true);
    if (f.size() >= 4 && f[0] == kind) rows.push_back({f[1], f[2], f[3]});
  }
  return rows;
}
}  // namespace

const std::vector<CudaMajorDriverMin>& cuda_major_driver_minimums() {
  static const std::vector<CudaMajorDriverMin> t = [] {
    std::vector<CudaMajorDriverMin> v;
    for (const auto& r : cuda_driver_rows("minor-compat"))
      v.push_back({static_cast<int>(parse_int(r[0]).value_or(0)), r[1], r[2]});
    return v;
  }();
  return t;
}

std::optional<std::string> min_driver_for_cuda(const std::string& cuda_version) {
  auto major = parse_int(split(cuda_version, '.').empty() ? "" : split(cuda_version, '.')[0]);
  if (!major) return std::nullopt;
  for (const auto& r : cuda_major_driver_minimums())
    if (r.cuda_major == *major) return r.min_driver_linux;
  return std::nullopt;
}

std::optional<std::string> min_windows_driver_for_cuda(const std::string& cuda_version) {
  auto parts = split(cuda_version, '.');
  auto major = parse_int(parts.empty() ? "" : parts[0]);
  if (!major) return std::nullopt;
  for (const auto& r : cuda_driver_rows("minor-compat-windows"))
    if (parse_int(r[0]) == *major) return r[1];
  return std::nullopt;
}

const std::vector<DriverBranchCuda>& driver_branch_max_cuda() {
  static const std::vector<DriverBranchCuda> t = [] {
    std::vector<DriverBranchCuda> v;
    for (const auto& r : cuda_driver_rows("branch")) v.push_back({static_cast<int>(parse_int(r[0]).value_or(0)), r[1], r[2]});
    return v;
  }();
  return t;
}

std::optional<int> driver_branch(const std::string& driver_version) {
  auto branch = parse_int(driver_version.substr(0, driver_version.find('.')));
  if (!branch) return std::nullopt;
  return static_cast<int>(*branch);
}

std::optional<std::string> max_cuda_for_driver(const std::string& driver_version) {
  auto major = driver_branch(driver_version);
  if (!major) return std::nullopt;
  std::optional<std::string> best;
  for (const auto& r : driver_branch_max_cuda())
    if (r.branch <= *major) best = r.max_cuda;
  return best;
}

extern const char* const kPytorchCudaArchTsv;
extern const char* const kPytorchCudaArchAarch64Tsv;
extern const char* const kGpusTsv;
extern const char* const kDriverArchTsv;

std::string pci_gpu_name(const std::optional<std::string>& pci_ids_name, const std::string& vendor,
                         const std::string& device) {
  if (pci_ids_name) return *pci_ids_name;
  if (auto k = gpu_by_pci_id(vendor, device)) return k->name;
  return "unknown NVIDIA device";
}

namespace {

const std::vector<std::pair<std::string, KnownGpu>>& gpu_rows() {
  static const std::vector<std::pair<std::string, KnownGpu>> t = [] {
    std::vector<std::pair<std::string, KnownGpu>> rows;
    for (const auto& line : lines(kGpusTsv)) {
      if (line.empty() || line[0] == '#') continue;
      auto f = split(line, '\t', true);
      if (f.size() < 3) continue;
      auto cc = split(f[2], '.');
      if (cc.size() != 2) continue;
      rows.push_back({f[0], {f[1], static_cast<int>(parse_int(cc[0]).value_or(0)),
                             static_cast<int>(parse_int(cc[1]).value_or(0))}});
    }
    return rows;
  }();
  return t;
}

// A GPU's name as people type it: lower case, letters and digits only, without the brand words
// ("NVIDIA GeForce RTX 4090" and "rtx-4090" are both "rtx4090").
std::string name_key(std::string s) {
  s = to_lower(s);
  for (const char* brand : {"nvidia", "geforce", "tesla"})
    for (auto at = s.find(brand); at != std::string::npos; at = s.find(brand)) s.erase(at, std::string(brand).size());
  std::string out;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c))) out += c;
  return out;
}

// The keys a table name answers to: the whole name, the name before its parenthesis ("H100" of
// "H100 (SXM5 80GB / PCIe / NVL 94GB)"), each of "A2 / A16", and what the parenthesis names
// ("DGX Spark" of "GB10 (DGX Spark)").
std::vector<std::string> name_keys(const std::string& name) {
  std::vector<std::string> keys = {name_key(name)};
  auto paren = name.find('(');
  std::string head = name.substr(0, paren);
  for (const auto& part : split(head, '/')) keys.push_back(name_key(part));
  if (paren != std::string::npos && name.find('/', paren) == std::string::npos)
    keys.push_back(name_key(name.substr(paren + 1, name.find(')', paren) - paren - 1)));
  return keys;
}

// What a driver's name adds after the model: a memory size ("80gb", "40gb"), a form factor or a
// memory type (sxm, pcie, nvl, hbm, laptop, mobile, max-q).
bool board_suffix(const std::string& rest) {
  size_t digits = rest.find_first_not_of("0123456789");
  if (digits != std::string::npos && digits > 0 && rest.compare(digits, 2, "gb") == 0) return true;
  for (const char* word : {"sxm", "pcie", "nvl", "hbm", "laptop", "mobile", "maxq"})
    if (starts_with(rest, word)) return true;
  return false;
}

}  // namespace

std::optional<KnownGpu> gpu_by_pci_id(const std::string& vendor, const std::string& device) {
  std::string key = to_lower(vendor) + ":" + to_lower(device);
  for (const auto& [id, g] : gpu_rows())
    if (id == key) return g;
  return std::nullopt;
}

std::vector<KnownGpu> gpus_by_name(const std::string& text) {
  std::string want = name_key(text);
  std::vector<KnownGpu> exact;
  if (want.empty()) return exact;
  auto add = [](std::vector<KnownGpu>& v, const KnownGpu& g) {
    for (const auto& k : v)
      if (k.name == g.name) return;
    v.push_back(g);
  };
  for (const auto& [id, g] : gpu_rows())
    for (const auto& k : name_keys(g.name))
      if (k == want) add(exact, g);
  if (!exact.empty()) return exact;
  // The name a driver reports carries the board after the model ("NVIDIA H100 80GB HBM3",
  // "NVIDIA A100-SXM4-80GB", "RTX 4060 Laptop GPU"): the longest table name it starts with, when
  // what follows is a memory size or a form factor (so "A1000" is not an A100).
  size_t longest = 0;
  std::vector<KnownGpu> board;
  for (const auto& [id, g] : gpu_rows())
    for (const auto& k : name_keys(g.name)) {
      if (k.empty() || k.size() < longest || !starts_with(want, k) ||
          !board_suffix(want.substr(k.size())))
        continue;
      if (k.size() > longest) board.clear(), longest = k.size();
      add(board, g);
    }
  return board;
}

namespace {

std::vector<TorchVariant> variant_rows(const char* tsv) {
  std::vector<TorchVariant> rows;
  for (const auto& line : lines(tsv)) {
    if (line.empty() || line[0] == '#') continue;
    auto f = split(line, '\t', true);
    if (f.size() < 6) continue;
    rows.push_back({f[0], f[1], f[2], f[3], f[4] == "yes", f[5]});
  }
  return rows;
}

}  // namespace

const std::vector<TorchVariant>& torch_variants() {
  static const std::vector<TorchVariant> t = variant_rows(kPytorchCudaArchTsv);
  return t;
}

const std::vector<TorchVariant>& torch_variants_aarch64() {
  static const std::vector<TorchVariant> t = variant_rows(kPytorchCudaArchAarch64Tsv);
  return t;
}

namespace {

// Release lines from the newest down, each one's CUDA variants from the newest down.
std::vector<TorchVariant> newest_first(std::vector<TorchVariant> rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    int c = compare_versions(a.torch, b.torch);
    return c != 0 ? c > 0 : compare_versions(a.cuda, b.cuda) > 0;
  });
  return rows;
}

}  // namespace

const std::vector<TorchVariant>& torch_variants_newest_first(const std::string& machine) {
  if (machine != "aarch64") return torch_variants_newest_first();
  static const std::vector<TorchVariant> rows = newest_first(torch_variants_aarch64());
  return rows;
}

const std::vector<TorchVariant>& torch_variants_newest_first() {
  // Sorted once (a plan asks for it many times); immutable afterwards, like the table itself.
  static const std::vector<TorchVariant> rows = newest_first(torch_variants());
  return rows;
}

extern const char* const kPytorchPythonTsv;

std::optional<PythonRange> python_range(const std::string& torch_release) {
  for (const auto& line : lines(kPytorchPythonTsv)) {
    if (line.empty() || line[0] == '#') continue;
    auto f = split(line, '\t', true);
    if (f.size() >= 3 && f[0] == torch_release) return PythonRange{f[1], f[2]};
  }
  return std::nullopt;
}

std::optional<DriverLimit> driver_limits(int cc_major, int cc_minor) {
  const int cc = cc_major * 10 + cc_minor;
  auto as_cc = [](const std::string& s) {
    auto p = split(s, '.');
    return p.size() == 2 ? static_cast<int>(parse_int(p[0]).value_or(0) * 10 + parse_int(p[1]).value_or(0)) : -1;
  };
  for (const auto& line : lines(kDriverArchTsv)) {
    if (line.empty() || line[0] == '#') continue;
    auto f = split(line, '\t', true);
    if (f.size() < 5) continue;
    if (cc >= as_cc(f[1]) && cc <= as_cc(f[2]))
      return DriverLimit{f[0], static_cast<int>(parse_int(f[3]).value_or(0)),
                         static_cast<int>(parse_int(f[4]).value_or(0))};
  }
  return std::nullopt;
}

std::optional<DriverLimit> last_driver_branch(int cc_major, int cc_minor) {
  auto d = driver_limits(cc_major, cc_minor);
  return d && d->last_branch > 0 ? d : std::nullopt;
}

std::optional<DriverLimit> first_driver_branch(int cc_major, int cc_minor) {
  auto d = driver_limits(cc_major, cc_minor);
  return d && d->first_branch > 0 ? d : std::nullopt;
}

std::string newest_torch_release() {
  std::string best;
  for (const auto& v : torch_variants())
    if (best.empty() || compare_versions(v.torch, best) > 0) best = v.torch;
  return best;
}

std::optional<std::string> known_arch_list(const std::string& torch_version, const std::string& cuda,
                                           const std::string& machine) {
  auto parts = split(torch_version.substr(0, torch_version.find('+')), '.');
  if (parts.size() < 2) return std::nullopt;
  std::string line = parts[0] + "." + parts[1];
  std::string variant = "cu";
  for (char c : cuda)
    if (c != '.') variant += c;
  for (const auto& v : machine == "aarch64" ? torch_variants_aarch64() : torch_variants())
    if (v.torch == line && v.variant == variant) return v.arch_list;
  return std::nullopt;
}

bool sass_runs_on(int sass, int major, int minor) {
  if (major == 8 && minor == 7) return sass == 87;
  if (major == 10 && minor == 1) return sass == 101;  // Thor as CUDA 12 numbered it
  if (major == 11 && minor == 0 && sass == 101) return true;  // Thor's 10.1 code is its 11.0

  return sass / 10 == major && sass % 10 <= minor;
}

bool arch_list_covers(const std::string& list, int major, int minor) {
  for (const auto& a : split(list, ';')) {
    auto parts = split(trim(a), '.');
    if (parts.size() < 2) continue;
    int am = static_cast<int>(parse_int(parts[0]).value_or(-1));
    int an = static_cast<int>(parse_int(parts[1].substr(0, 1)).value_or(-1));
    if (am >= 0 && an >= 0 && sass_runs_on(am * 10 + an, major, minor)) return true;  // SASS
    if (contains(a, "PTX") && (am < major || (am == major && an <= minor))) return true;  // PTX JIT
  }
  return false;
}

std::string cuda_version_string(int encoded) {
  return std::to_string(encoded / 1000) + "." + std::to_string((encoded % 1000) / 10);
}

std::string jetson_index(const std::string& jetpack) {
  return starts_with(jetpack, "6") ? "https://pypi.jetson-ai-lab.io/jp6/cu126" : "";
}

}  // namespace dlready
