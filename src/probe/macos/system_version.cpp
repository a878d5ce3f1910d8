// macOS's version and hardware: SystemVersion.plist (a file) and sysctl's answers (the seam).
#include <algorithm>

#include "core/scan.hpp"
#include "core/text.hpp"
#include "platform/platform_record.hpp"
#include "probe/macos/macos_probes.hpp"

namespace dlready {
namespace {

// The <string> after <key>name</key> in an XML plist's top dict; nullopt when absent.
std::optional<std::string> plist_string(const std::string& text, const std::string& name) {
  auto key = text.find("<key>" + name + "</key>");
  if (key == std::string::npos) return std::nullopt;
  auto open = text.find("<string>", key);
  auto close = open == std::string::npos ? std::string::npos : text.find("</string>", open);
  // The value must follow its key directly (only whitespace between).
  if (close == std::string::npos || trim(text.substr(key + name.size() + 11, open - key - name.size() - 11)) != "")
    return std::nullopt;
  return trim(text.substr(open + 8, close - open - 8));
}

// "14.5", "10.16", "26.0.1": two or three numbers of at most four digits. Anything else in the
// plist is no version (it is unknown, never compared).
bool is_macos_version(std::string_view v) {
  TextCursor c{v};
  for (int part = 0; part < 3; ++part) {
    if (c.take_exactly(is_ascii_digit, 1, 4).empty()) return false;
    if (c.done()) return part >= 1;
    if (!c.eat(".")) return false;
  }
  return false;
}

// "23F79": letters and digits, at most 16.
bool is_build_name(std::string_view b) {
  return !b.empty() && b.size() <= 16 && std::all_of(b.begin(), b.end(), is_ascii_alnum);
}

std::optional<bool> flag(const SysctlAnswers& s, const char* name) {
  auto it = s.find(name);
  if (it == s.end()) return std::nullopt;
  return trim(it->second) == "1";
}

std::optional<std::string> value(const SysctlAnswers& s, const char* name) {
  auto it = s.find(name);
  if (it == s.end() || trim(it->second).empty()) return std::nullopt;
  return trim(it->second);
}

}  // namespace

void probe_macos_version(const RootFs& fs, const SysctlAnswers& sysctl, MacosFacts& mac, OsFacts& os) {
  os.id = std::string(platform_record(Platform::macos).name);  // what the record finds the platform by
  if (auto text = fs.read("/System/Library/CoreServices/SystemVersion.plist", 64 * 1024)) {
    mac.product_version = plist_string(*text, "ProductVersion");
    mac.build = plist_string(*text, "ProductBuildVersion");
  }
  std::string unreadable;
  if (mac.product_version && !is_macos_version(*mac.product_version)) {
    unreadable = "ProductVersion '" + printable(*mac.product_version, 40) + "' is not a version";
    mac.product_version.reset();
  }
  if (mac.build && !is_build_name(*mac.build)) mac.build.reset();
  mac.darwin_release = value(sysctl, "kern.osrelease");
  // The shim answers 10.16 for 11 and later and 16.x for 26; the Darwin release is never shimmed.
  if (mac.product_version && (*mac.product_version == "10.16" || starts_with(*mac.product_version, "16.")))
    mac.version_shimmed = true;
  std::optional<int> darwin_major = mac.darwin_release ? macos_major_from_darwin(*mac.darwin_release) : std::nullopt;
  std::optional<std::string> shown = mac.product_version;
  if (mac.version_shimmed) shown = darwin_major ? std::to_string(*darwin_major) : "11 or newer";
  os.kernel = mac.darwin_release ? "Darwin " + *mac.darwin_release : std::optional<std::string>();
  os.pretty_name = "macOS " + shown.value_or(unreadable.empty() ? "(version unknown)" : "(version unknown: " + unreadable + ")") +
                   (mac.build ? " (" + *mac.build + ")" : "");
}

void probe_macos_hardware(const SysctlAnswers& sysctl, MacosFacts& mac, OsFacts& os) {
  mac.apple_silicon = flag(sysctl, "hw.optional.arm64");
  mac.translated = flag(sysctl, "sysctl.proc_translated");
  mac.virtual_machine = flag(sysctl, "kern.hv_vmm_present");
  mac.model = value(sysctl, "hw.model");
  mac.cpu_brand = value(sysctl, "machdep.cpu.brand_string");
  if (mac.model && starts_with(*mac.model, "VirtualMac")) mac.virtual_machine = true;
  if (mac.cpu_brand && mac.cpu_brand->find("(Virtual)") != std::string::npos) mac.virtual_machine = true;
  if (mac.apple_silicon) os.arch = *mac.apple_silicon ? "arm64" : "x86_64";
  os.cpu_model = mac.cpu_brand;
  if (auto cpus = value(sysctl, "hw.ncpu"))
    if (auto n = parse_int(*cpus)) os.cpu_count = static_cast<int>(*n);
  if (auto memory = value(sysctl, "hw.memsize"))
    if (auto bytes = parse_int(*memory)) os.memory_bytes = static_cast<uint64_t>(*bytes);
}

}  // namespace dlready
