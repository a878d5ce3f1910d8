// An aarch64 machine's platform from its files: a Jetson (/etc/nv_tegra_release, a Tegra SoC family,
// the device tree's model and `compatible`), a Grace CPU (soc0's soc_id jep106:036b:0241, as DCGM
// reads it), the page size (sysconf here; under a root the transparent huge page's PMD size, 2 MiB
// with 4K pages and 512 MiB with 64K). shared/knowledge/aarch64.md §2, §5.
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <functional>

#include "binfmt/elf_reader.hpp"
#include "core/scan.hpp"
#include "core/text.hpp"
#include "probe/linux/probes.hpp"

namespace dlready {
namespace {

// JetPack by L4T release, the most specific first (jetson-containers l4t_version.py; NVIDIA's
// JetPack archive): R36.4.3 and later are JetPack 6.2, R36.4 6.1, R36.3 6.0, R35.x 5.1.x, R38.2 7.0,
// R38.4 7.1, R39 7.2.
struct JetpackRow {
  const char* l4t;
  const char* jetpack;
};
constexpr JetpackRow kJetpacks[] = {{"39", "7.2"},     {"38.4", "7.1"},  {"38.2", "7.0"},  {"36.4.3", "6.2"},
                                    {"36.4", "6.1"},   {"36.3", "6.0"},  {"36.2", "6.0 DP"}, {"35.6", "5.1.4"},
                                    {"35.5", "5.1.3"}, {"35.4", "5.1.2"}, {"35.3", "5.1.1"}, {"35.2", "5.1"},
                                    {"35.1", "5.0.2"}};

std::optional<std::string> jetpack_of(const std::string& l4t) {
  for (const auto& r : kJetpacks) {
    std::string row = r.l4t;
    bool same_line = l4t == row || starts_with(l4t, row + ".");
    bool later_patch = split(row, '.').size() == 3 && compare_versions(l4t, row) >= 0 &&
                       starts_with(l4t, row.substr(0, row.rfind('.')) + ".");
    if (same_line || later_patch) return std::string(r.jetpack);
  }
  return std::nullopt;
}

// "# R36 (release), REVISION: 4.3, GCID: ..." -> "36.4.3"
std::optional<std::string> l4t_release(const std::string& text) {
  size_t stop = 0;  // the first ',' or newline at or after the candidate (found once per stretch: linear)
  for (size_t r = text.find('R'); r != std::string::npos; r = text.find('R', r + 1)) {
    TextCursor c{text, r + 1};
    auto major = c.take(is_ascii_digit, 3);
    if (major.size() < 2) continue;
    if (stop < c.at) stop = text.find_first_of(",\n", c.at);
    if (stop == std::string::npos) return std::nullopt;
    if (text[stop] != ',') continue;
    c.at = stop + 1;
    c.skip_spaces();
    if (!c.eat("REVISION:")) continue;
    c.skip_spaces();
    size_t revision_start = c.at;
    if (c.take(is_ascii_digit, 3).empty()) continue;
    if (TextCursor dot = c; dot.eat(".") && !dot.take(is_ascii_digit, 3).empty()) c = dot;
    std::string revision = text.substr(revision_start, c.at - revision_start);
    return std::string(major) + "." + revision + (revision.find('.') == std::string::npos ? ".0" : "");
  }
  return std::nullopt;
}

// "Node 1 FilePages:  83886080 kB" in a node's meminfo -> bytes.
std::optional<uint64_t> node_meminfo_bytes(const std::string& meminfo, const std::string& key) {
  for (const auto& line : lines(meminfo)) {
    auto at = line.find(" " + key + ":");
    if (at == std::string::npos || !starts_with(line, "Node ")) continue;
    auto parts = split(trim(line.substr(at + key.size() + 2)), ' ');
    if (!parts.empty())
      if (auto kb = parse_int(parts[0]); kb && *kb >= 0) return static_cast<uint64_t>(*kb) * 1024;
  }
  return std::nullopt;
}

// The NUMA nodes with memory and no processors (a GH200's HBM in NUMA mode), at most 64 nodes.
std::vector<MemoryOnlyNode> memory_only_nodes(const RootFs& fs) {
  std::vector<MemoryOnlyNode> out;
  const std::string base = "/sys/devices/system/node";
  int seen = 0;
  for (const auto& name : fs.list(base)) {
    if (!starts_with(name, "node") || ++seen > 64) continue;
    auto id = parse_int(name.substr(4));
    if (!id || *id < 0 || *id > 4096) continue;
    auto cpus = fs.read_line(base + "/" + name + "/cpulist");
    if (!cpus || !trim(*cpus).empty()) continue;  // unknown, or it has processors
    auto meminfo = fs.read(base + "/" + name + "/meminfo", 64 * 1024);
    if (!meminfo) continue;
    MemoryOnlyNode n;
    n.node = static_cast<int>(*id);
    n.mem_total = node_meminfo_bytes(*meminfo, "MemTotal");
    n.file_pages = node_meminfo_bytes(*meminfo, "FilePages");
    if (n.mem_total.value_or(0) > 0) out.push_back(n);
  }
  return out;
}

// ptxas --version's "Cuda compilation tools, release 12.8, V12.8.93" is a literal in the program:
// read in 1 MiB windows (overlapping by the pattern's length), at most 256 MiB, never run.
// The scan reads through `scan` (which a capture does not record: ptxas is tens of megabytes), and
// the 64 bytes that answer again through `fs`, so that a capture holds them where they were.
std::optional<std::string> ptxas_release(const RootFs& fs, const RootFs& scan, const std::string& path) {
  static const std::string kMark = "Cuda compilation tools, release ";
  constexpr size_t kWindow = 1 << 20;
  auto st = scan.stat(path);
  if (!st || !S_ISREG(st->mode)) return std::nullopt;  // a FIFO or /dev/zero is no ptxas
  for (uint64_t off = 0; off < (256ull << 20); off += kWindow - 64) {
    auto bytes = scan.read_at(path, off, kWindow);
    if (!bytes || bytes->size() <= kMark.size()) return std::nullopt;
    for (size_t at = bytes->find(kMark); at != std::string::npos; at = bytes->find(kMark, at + 1)) {
      // "12.8, V12.8.93"
      TextCursor tail{std::string_view(*bytes).substr(at + kMark.size(), 16)};
      bool release = !tail.take_exactly(is_ascii_digit, 1, 2).empty() && tail.eat(".") &&
                     !tail.take_exactly(is_ascii_digit, 1, 2).empty();
      size_t length = tail.at;
      if (!release || !tail.eat(", V")) continue;
      static_cast<void>(fs.read_at(path, off + at, kMark.size() + 16));
      return std::string(tail.text.substr(0, length));
    }
    if (bytes->size() < kWindow) return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<ArmFacts> probe_arm(const RootFs& fs, const std::optional<std::string>& arch) {
  ArmFacts a;
  if (auto rel = fs.read("/etc/nv_tegra_release", 4096)) a.l4t_release = l4t_release(*rel);
  if (auto v = fs.read_line("/sys/devices/soc0/family")) a.soc_family = printable(trim(*v), 80);
  if (auto v = fs.read_line("/sys/devices/soc0/soc_id")) a.soc_id = printable(trim(*v), 80);
  if (auto v = fs.read("/proc/device-tree/model", 4096)) a.model = printable(trim(v->substr(0, v->find('\0'))), 120);
  if (auto v = fs.read("/proc/device-tree/compatible", 4096))
    for (const auto& c : split(*v, '\0'))
      if (a.compatible.size() < 16) a.compatible.push_back(printable(c, 80));
  bool tegra_compatible = false;
  for (const auto& c : a.compatible) tegra_compatible |= starts_with(c, "nvidia,tegra");
  a.tegra = a.l4t_release.has_value() || tegra_compatible || starts_with(to_lower(a.soc_family.value_or("")), "tegra");
  a.grace = a.soc_id == std::string("jep106:036b:0241");
  if (a.l4t_release) a.jetpack = jetpack_of(*a.l4t_release);
  if (a.tegra)
    for (const char* node : {"/dev/nvmap", "/dev/nvhost-ctrl-gpu", "/dev/nvgpu/igpu0/ctrl"})
      if (fs.exists(node)) a.tegra_device_nodes.push_back(node);
  if (fs.is_host_root()) {
    if (long size = ::sysconf(_SC_PAGESIZE); size > 0) a.page_size = static_cast<uint64_t>(size);
  } else if (auto pmd = fs.read_line("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size")) {
    // A PMD maps one page table of 8-byte entries: (page / 8) pages of `page` bytes.
    if (auto bytes = parse_int(trim(*pmd)); bytes && *bytes == (2 << 20)) a.page_size = 4096;
    else if (bytes && *bytes == (512ll << 20)) a.page_size = 65536;
    else if (bytes && *bytes == (32 << 20)) a.page_size = 16384;
  }
  if (arch != std::string("aarch64") && !a.tegra && !a.grace) return std::nullopt;
  a.memory_only_nodes = memory_only_nodes(fs);
  return a;
}

void probe_page_alignment(const RootFs& fs, const PythonFacts& python, ArmFacts& a) {
  if (!a.page_size || *a.page_size <= 4096) return;
  size_t looked = 0;
  // The shared objects of each environment's packages, two folders deep (package/_C.so,
  // package/lib/libx.so, package.libs/libgomp.so): where pip puts them. Bounded: 4000 files.
  std::function<void(const std::string&, int)> walk = [&](const std::string& dir, int depth) {
    for (const auto& name : fs.list(dir)) {
      if (looked >= 4000 || a.misaligned_libraries.size() >= 32) return;
      std::string path = dir + "/" + name;
      if (depth < 2 && !ends_with(name, ".dist-info") && fs.is_dir(path)) {
        walk(path, depth + 1);
        continue;
      }
      if (!ends_with(name, ".so") && name.find(".so.") == std::string::npos) continue;
      ++looked;
      if (name.find("jemalloc") != std::string::npos && a.jemalloc_libraries.size() < 16)
        a.jemalloc_libraries.push_back(path);
      auto elf = read_elf(fs, path);
      if (elf.info && elf.info->load_align && elf.info->load_align < *a.page_size)
        a.misaligned_libraries.push_back(path + ": aligned to " + std::to_string(elf.info->load_align));
    }
  };
  for (const auto& e : python.envs)
    for (const auto& sp : e.site_packages) walk(sp, 0);
}

}  // namespace dlready

namespace dlready {

void probe_triton_ptxas(const RootFs& fs, const RootFs& scan, const PythonFacts& python, const EnvFacts& env,
                        ArmFacts& a) {
  auto variable = env.vars.find("TRITON_PTXAS_PATH");
  for (const auto& e : python.envs)
    for (const auto& t : e.torch) {
      // torch's inductor sets TRITON_PTXAS_PATH to torch/bin/ptxas when it ships one (2.11's wheels
      // do); otherwise Triton takes its own.
      std::string triton = t.site_packages + "/triton/backends/nvidia/bin/ptxas";
      std::string own = t.site_packages + "/torch/bin/ptxas";
      std::string path = variable != env.vars.end() ? variable->second : fs.exists(own) ? own : triton;
      if (!fs.exists(path) || a.triton_ptxas.size() >= 8) continue;
      if (variable == env.vars.end() && !fs.exists(t.site_packages + "/triton")) continue;
      a.triton_ptxas.push_back({path, ptxas_release(fs, scan, path)});
    }
}

}  // namespace dlready
