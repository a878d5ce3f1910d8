#include "compat/mac_wheels.hpp"

#include "core/text.hpp"
#include "compat/compat.hpp"

namespace dlready {
namespace {

// The macOS torch's MPSDevice requires before it answers (aten/src/ATen/mps/MPSDevice.mm): 13.0
// from 2.5 (pytorch PR #133141), 14.0 from 2.9 (PR #162921, "in 2.9+ MPS is only supported on
// MacOS Sonoma+"); 12.3 before (shared/knowledge/macos.md §1).
struct MpsGate {
  const char* first_torch;
  const char* macos;
};
constexpr MpsGate kMpsGates[] = {{"2.9", "14.0"}, {"2.5", "13.0"}, {"1.12", "12.3"}};

// PyPI's macOS wheels (the torch JSON API, read 2026-12-05; shared/knowledge/macos.md §1): arm64
// wheels of every release are tagged macosx_11_0 up to 2.11 and macosx_14_0 from 2.12 (their
// dylibs' LC_BUILD_VERSION minos agrees); x86_64 wheels stop at 2.2.2 (cp38-cp312; pytorch
// #114602, #131766).
constexpr const char* kLastIntelRelease = "2.2";
constexpr const char* kLastIntelPython = "3.12";
constexpr const char* kFirstMacos14Release = "2.12";

std::string release_of(const std::string& torch) {
  auto p = split(torch.substr(0, torch.find('+')), '.');
  return p.size() >= 2 ? p[0] + "." + p[1] : torch;
}

}  // namespace

std::string mps_needs_macos(const std::string& torch) {
  for (const auto& g : kMpsGates)
    if (compare_versions(release_of(torch), g.first_torch) >= 0) return g.macos;
  return "12.3";
}

std::optional<std::string> mac_wheel_misfit(const std::string& release, const std::string& cpu, const std::string& macos,
                             const std::string& python) {
  auto range = python_range(release);
  if (cpu == "x86_64") {
    if (compare_versions(release, kLastIntelRelease) > 0) return "no macOS x86_64 wheels after 2.2.2";
    std::string max = compare_versions(release, kLastIntelRelease) == 0 ? kLastIntelPython : range ? range->max : "";
    if ((range && compare_versions(python, range->min) < 0) || (!max.empty() && compare_versions(python, max) > 0))
      return "no wheels for Python " + python;
    return std::nullopt;
  }
  if (range && (compare_versions(python, range->min) < 0 || compare_versions(python, range->max) > 0))
    return "no wheels for Python " + python + " (" + range->min + " to " + range->max + ")";
  if (compare_versions(release, kFirstMacos14Release) >= 0 && compare_versions(macos, "14.0") < 0)
    return "its wheels need macOS 14";
  return std::nullopt;
}

std::optional<std::string> newest_mac_release(const std::string& cpu, const std::string& macos, const std::string& python,
                                              bool with_mps) {
  std::string last;
  for (const auto& v : torch_variants_newest_first()) {
    if (v.torch == last) continue;
    last = v.torch;
    if (mac_wheel_misfit(v.torch, cpu, macos, python)) continue;
    if (with_mps && compare_versions(macos, mps_needs_macos(v.torch)) < 0) continue;
    return v.torch;
  }
  return std::nullopt;
}

}  // namespace dlready
