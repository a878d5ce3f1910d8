// Fixture Macs for the macOS doctor's tests (macos_doctor_test.cpp) and golden outputs
// (golden_test.cpp): a Mac's files in a fixture root, with the manifest a capture of it would hold.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fixture.hpp"
#include "macho_builder.hpp"

namespace dlready::test {

inline constexpr uint32_t kArm64 = 0x0100000C, kX86_64 = 0x01000007;
inline constexpr const char* kMpsGraph =
    "/System/Library/Frameworks/MetalPerformanceShadersGraph.framework/Versions/A/MetalPerformanceShadersGraph";

// A fixture Mac: SystemVersion.plist, sysctl's answers and the environment in the capture's
// manifest, a Python with torch where the Mac keeps it.
struct Mac {
  std::string version = "15.1", build = "24B83", darwin = "24.1.0";
  std::optional<bool> apple_silicon = true;
  bool vm = false, translated = false;
  std::string model = "Mac15,3", brand = "Apple M3";
  std::string torch = "2.11.0";  // "": none
  uint32_t torch_minos = 0x000B0000;
  bool torch_mps = true;
  std::vector<uint32_t> python_cpus = {kArm64};
  std::string conda_subdir;  // set: a Miniforge base in the home folder instead of Homebrew's Python
  std::string python = "3.12";
  std::map<std::string, std::string> env;              // more of the environment
  std::map<std::string, std::string> files;            // more files (path -> text)
  std::optional<nlohmann::json> metal;                 // the live Metal probe's record
  bool sysctl_answers = true;                          // false: a capture that recorded none
  std::optional<std::string> arch;                     // the manifest's uname machine
};

inline void write_mac(Fixture& f, const Mac& m) {
  f.write("/System/Library/CoreServices/SystemVersion.plist",
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><dict>\n <key>ProductBuildVersion</key>"
          "<string>" + m.build + "</string>\n <key>ProductName</key><string>macOS</string>\n <key>ProductVersion</key>"
          "<string>" + m.version + "</string>\n</dict></plist>\n");
  std::string prefix = m.conda_subdir.empty() ? "/opt/homebrew" : "/Users/alice/miniforge3";
  std::vector<MachOSpec> slices;
  for (uint32_t cpu : m.python_cpus) slices.push_back({cpu, 2, 0x000B0000, {"/usr/lib/libSystem.B.dylib"}, {}, {}});
  const std::string py = "python" + m.python;
  f.write(prefix + "/bin/" + py, slices.size() == 1 ? macho_thin(slices[0]) : macho_fat(slices), 0755);
  f.link(prefix + "/bin/python3", py);
  std::string sp = prefix + "/lib/" + py + "/site-packages";
  f.mkdir(sp);
  if (!m.conda_subdir.empty())
    f.write(prefix + "/conda-meta/python-" + m.python + ".7-h1234.json", "{\"name\": \"python\", \"subdir\": \"" + m.conda_subdir + "\"}");
  if (!m.torch.empty()) {
    f.write(sp + "/torch/__init__.py", "");
    f.write(sp + "/torch/version.py", "__version__ = '" + m.torch + "'\ncuda = None\n");
    f.write(sp + "/torch-" + m.torch + ".dist-info/METADATA", "Metadata-Version: 2.1\nName: torch\nVersion: " + m.torch + "\n");
    MachOSpec lib{m.python_cpus.front(), 6, m.torch_minos, {"/usr/lib/libc++.1.dylib"}, {}, {"@loader_path"}};
    if (m.torch_mps) lib.weak_dylibs = {kMpsGraph, "/System/Library/Frameworks/Metal.framework/Versions/A/Metal"};
    f.write(sp + "/torch/lib/libtorch_cpu.dylib", macho_thin(lib));
  }
  nlohmann::json sysctl = {{"kern.osrelease", m.darwin}, {"hw.model", m.model}, {"machdep.cpu.brand_string", m.brand},
                           {"kern.hv_vmm_present", m.vm ? "1" : "0"}, {"hw.ncpu", "8"}, {"hw.memsize", "17179869184"}};
  if (m.apple_silicon) sysctl["hw.optional.arm64"] = *m.apple_silicon ? "1" : "0";
  if (m.apple_silicon == true) sysctl["sysctl.proc_translated"] = m.translated ? "1" : "0";
  nlohmann::json manifest = {
      {"format", 1}, {"platform", "macos"}, {"dlready_version", "0.1.0"}, {"created", "2026-12-06T07:00:00Z"},
      {"environment", {{"HOME", "/Users/alice"}, {"PATH", prefix + "/bin:/usr/bin:/bin"}}},
      {"user", {{"name", "alice"}, {"uid", 501}, {"gids", {20}}}}, {"sysctl", m.sysctl_answers ? sysctl : nlohmann::json::object()}};
  if (m.arch) manifest["arch"] = *m.arch;
  if (!m.conda_subdir.empty()) manifest["environment"]["CONDA_PREFIX"] = prefix;
  for (const auto& [k, v] : m.env) manifest["environment"][k] = v;
  if (m.metal) manifest["metal"] = *m.metal;
  for (const auto& [path, text] : m.files) f.write(path, text);
  f.write("/.dlready-capture/capture.json", manifest.dump(2));
}

}  // namespace dlready::test
