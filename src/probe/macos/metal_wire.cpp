// The Metal probe's child speaks in lines (probe/macos/metal_probe.cpp): what it prints is read
// here, on every POSIX build, so the parsing is tested where the child cannot run.
#include "core/text.hpp"
#include "probe/macos/macos_probes.hpp"

namespace dlready {

std::string metal_wire_line(const std::vector<std::string>& fields) {
  std::string line;
  for (const auto& f : fields) {
    if (!line.empty()) line += '\t';
    for (char c : f) line += c == '\t' || c == '\n' || c == '\r' ? ' ' : c;
  }
  return line + "\n";
}

// "device\tNAME\tLOW_POWER\tMAC2", "gate\tMACOS\t0|1", "error\tTEXT"; anything else is ignored (a
// newer child's line), at most 64 devices and 16 gates are kept.
MetalProbe parse_metal_wire(const std::string& text) {
  MetalProbe p;
  for (const auto& line : lines(text.substr(0, 64 * 1024))) {
    auto f = split(line, '\t', true);
    if (f.size() == 4 && f[0] == "device" && p.devices.size() < 64)
      p.devices.push_back({printable(f[1], 200), f[2] == "1", f[3] == "1"});
    else if (f.size() == 3 && f[0] == "gate" && p.mpsgraph_gates.size() < 16)
      p.mpsgraph_gates[printable(f[1], 16)] = f[2] == "1";
    else if (f.size() >= 2 && f[0] == "error" && !p.error)
      p.error = printable(f[1], 400);
  }
  return p;
}

}  // namespace dlready
