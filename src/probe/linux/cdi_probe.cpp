// Container Device Interface specifications (/etc/cdi, /var/run/cdi): what `nvidia-ctk cdi
// generate` wrote. Its host paths carry the driver version of the day it ran; after a driver
// upgrade they name files that no longer exist and containers lose the GPU.
#include <set>

#include "core/text.hpp"
#include "probe/linux/probes.hpp"

namespace dlready {

std::vector<std::string> parse_cdi_driver_versions(const std::string& text) {
  std::set<std::string> found;
  for (size_t at = text.find(".so."); at != std::string::npos; at = text.find(".so.", at + 4)) {
    size_t end = at + 4;
    while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
    std::string v = text.substr(at + 4, end - at - 4);
    while (!v.empty() && v.back() == '.') v.pop_back();
    // A driver version has a major of three digits and at least one more part (580.65.06);
    // libcuda.so.1 or libfoo.so.2.3 are sonames, not driver versions.
    auto dot = v.find('.');
    if (dot == 3 && std::isdigit(static_cast<unsigned char>(v[0])) && v.size() > 4) found.insert(v);
  }
  return {found.begin(), found.end()};
}

std::vector<CdiSpec> probe_cdi_specs(const RootFs& fs) {
  std::vector<CdiSpec> specs;
  for (const char* dir : {"/etc/cdi", "/var/run/cdi"}) {
    for (const auto& name : fs.list(dir)) {
      if (!ends_with(name, ".yaml") && !ends_with(name, ".yml") && !ends_with(name, ".json")) continue;
      std::string path = std::string(dir) + "/" + name;
      auto text = fs.read(path, 4u << 20);
      if (!text || !contains(*text, "nvidia.com/")) continue;  // another vendor's devices
      specs.push_back({path, parse_cdi_driver_versions(*text)});
    }
  }
  return specs;
}

}  // namespace dlready
