#include "core/text.hpp"
#include "probe/probes.hpp"

namespace dlready {

std::optional<std::string> lookup_pci_name(const std::string& ids, const std::string& vendor,
                                           const std::string& device) {
  // pci.ids: "vvvv  Vendor" at column 0, "\tdddd  Device" below it, "\t\t" subsystems.
  std::string v = to_lower(vendor), d = to_lower(device);
  size_t pos = 0;
  bool in_vendor = false;
  while (pos < ids.size()) {
    size_t end = ids.find('\n', pos);
    if (end == std::string::npos) end = ids.size();
    std::string_view line(ids.data() + pos, end - pos);
    pos = end + 1;
    if (line.empty() || line[0] == '#') continue;
    if (line[0] != '\t') {
      if (in_vendor) return std::nullopt;  // left our vendor's block
      in_vendor = line.size() > 4 && to_lower(line.substr(0, 4)) == v;
      continue;
    }
    if (!in_vendor || line.size() < 6 || line[1] == '\t') continue;
    if (to_lower(line.substr(1, 4)) == d) return trim(line.substr(5));
  }
  return std::nullopt;
}

namespace {

std::string hex_field(const RootFs& fs, const std::string& path) {
  auto v = fs.read_line(path).value_or("");
  if (starts_with(v, "0x")) v = v.substr(2);
  return to_lower(v);
}

std::vector<uint64_t> bar_sizes(const RootFs& fs, const std::string& dev) {
  std::vector<uint64_t> sizes;
  auto text = fs.read(dev + "/resource", 16 * 1024);
  if (!text) return sizes;
  for (const auto& line : lines(*text)) {
    if (sizes.size() == 6) break;
    auto f = split(line, ' ');
    if (f.size() < 2) continue;
    auto start = parse_int(f[0], 16), end = parse_int(f[1], 16);
    if (!start || !end) {
      sizes.push_back(0);
      continue;
    }
    sizes.push_back(*end > *start ? static_cast<uint64_t>(*end - *start + 1) : 0);
  }
  return sizes;
}

}  // namespace

PciFacts probe_pci(const RootFs& fs) {
  PciFacts f;
  const std::string base = "/sys/bus/pci/devices";
  auto names = fs.list(base);
  f.sysfs_readable = !names.empty();
  f.sysfs_denied = names.empty() && fs.is_dir(base) && !fs.can_list(base);
  std::optional<std::string> ids;
  for (const auto& addr : names) {
    std::string dev = base + "/" + addr;
    PciFunction fn;
    fn.address = addr;
    fn.vendor_id = hex_field(fs, dev + "/vendor");
    fn.device_id = hex_field(fs, dev + "/device");
    fn.class_code = hex_field(fs, dev + "/class");
    fn.is_gpu = starts_with(fn.class_code, "0300") || starts_with(fn.class_code, "0302");
    bool nvidia = fn.vendor_id == "10de";
    if (!nvidia && !fn.is_gpu) continue;
    if (auto drv = fs.readlink(dev + "/driver")) fn.driver = path_basename(*drv);
    fn.link_speed = fs.read_line(dev + "/current_link_speed");
    fn.max_link_speed = fs.read_line(dev + "/max_link_speed");
    if (auto w = fs.read_line(dev + "/current_link_width"))
      if (auto n = parse_int(*w)) fn.link_width = static_cast<int>(*n);
    if (auto w = fs.read_line(dev + "/max_link_width"))
      if (auto n = parse_int(*w)) fn.max_link_width = static_cast<int>(*n);
    fn.bar_sizes = bar_sizes(fs, dev);
    if (!ids) {
      for (const char* p : {"/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids", "/usr/share/pci.ids"}) {
        if ((ids = fs.read(p, 8u << 20))) {
          f.pci_ids_path = p;
          break;
        }
      }
      if (!ids) ids = std::string();
    }
    fn.name = lookup_pci_name(*ids, fn.vendor_id, fn.device_id);
    (nvidia ? f.nvidia : f.other_gpus).push_back(fn);
  }
  return f;
}

}  // namespace dlready
