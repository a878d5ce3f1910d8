#include <map>
#include <set>

#include "core/text.hpp"
#include "probe/linux/probes.hpp"

namespace dlready {

std::map<std::string, std::string> pci_names(const std::string& ids, const std::set<std::string>& vendors) {
  // pci.ids: "vvvv  Vendor" at column 0, "\tdddd  Device" below it, "\t\t" subsystems. One pass,
  // however many functions ask (10,000 functions each scanning 8 MB was minutes).
  std::map<std::string, std::string> names;
  std::set<std::string> wanted;
  for (const auto& v : vendors) wanted.insert(to_lower(v));
  size_t pos = 0;
  std::string vendor;  // the block we are in, when it is a wanted one
  while (pos < ids.size()) {
    size_t end = ids.find('\n', pos);
    if (end == std::string::npos) end = ids.size();
    std::string_view line(ids.data() + pos, end - pos);
    pos = end + 1;
    if (line.empty() || line[0] == '#') continue;
    if (line[0] != '\t') {
      vendor = line.size() > 4 && wanted.count(to_lower(line.substr(0, 4))) ? to_lower(line.substr(0, 4)) : "";
      continue;
    }
    if (vendor.empty() || line.size() < 6 || line[1] == '\t') continue;
    names.emplace(vendor + ":" + to_lower(line.substr(1, 4)), trim(line.substr(5)));  // the first entry wins
  }
  return names;
}

std::optional<std::string> lookup_pci_name(const std::string& ids, const std::string& vendor,
                                           const std::string& device) {
  auto names = pci_names(ids, {vendor});
  auto it = names.find(to_lower(vendor) + ":" + to_lower(device));
  return it == names.end() ? std::nullopt : std::optional<std::string>(it->second);
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
    (nvidia ? f.nvidia : f.other_gpus).push_back(fn);
  }
  if (f.nvidia.empty() && f.other_gpus.empty()) return f;
  std::optional<std::string> ids;
  for (const char* p : {"/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids", "/usr/share/pci.ids"})
    if ((ids = fs.read(p, 8u << 20))) {
      f.pci_ids_path = p;
      break;
    }
  std::set<std::string> vendors;
  for (const auto* list : {&f.nvidia, &f.other_gpus})
    for (const auto& fn : *list) vendors.insert(fn.vendor_id);
  auto pci_ids_names = pci_names(ids.value_or(""), vendors);
  for (auto* list : {&f.nvidia, &f.other_gpus})
    for (auto& fn : *list)
      if (auto it = pci_ids_names.find(fn.vendor_id + ":" + fn.device_id); it != pci_ids_names.end()) fn.name = it->second;
  return f;
}

}  // namespace dlready
