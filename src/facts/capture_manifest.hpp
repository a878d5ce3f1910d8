// capture.json: what a capture holds besides the files — the machine's answers that do not come
// from a file (the driver probes' children, the GPU code in fat binaries too large to copy, the
// environment, the user and the processor architecture). `dlready capture` writes it; under a
// root that holds one, the doctor replays from it with the source of facts of the platform it names
// (probe/gather.cpp; `capture_under` and `replayed_options` in probe/linux/gather_linux.cpp).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "facts/access_log.hpp"
#include "facts/facts_macos.hpp"

namespace dlready {

struct CaptureManifest {
  static constexpr int kFormat = 1;
  int format = kFormat;
  std::string dlready_version, created;  // created: UTC, ISO 8601
  bool redacted = true;
  std::map<std::string, std::string> environment;  // the variables the doctor reads
  std::string user_name;
  unsigned uid = 0;
  std::vector<unsigned> gids;
  std::string platform = "linux";         // whose source of facts replays it (probe/gather.cpp)
  std::optional<std::string> arch;        // uname's machine
  std::optional<std::string> own_module;  // libdlready_train.so the binary would load
  std::map<std::string, ChildAnswer> children;
  std::map<std::string, GpuCode> gpu_code;
  // A Mac's sysctl answers (hw.optional.arm64, kern.osrelease, kern.hv_vmm_present, ...): what no
  // file holds, recorded so the macOS source of facts replays them (probe/macos/).
  std::map<std::string, std::string> sysctl;
  std::optional<MetalProbe> metal;  // the Mac's live Metal probe (probe/macos/metal_probe.cpp)
  // A Windows machine's answers: the registry, files, DXGI... (facts/windows_answers.hpp).
  std::optional<WindowsAnswers> windows;
};

// With `redactor`, what it hides is replaced everywhere (facts/windows_answers.hpp: a Windows
// machine's answers too, consistently, so the capture still replays).
std::string capture_manifest_json(const CaptureManifest& m, const Redactor* redactor = nullptr);
// nullopt with `error` set when the text is not a capture.json this version reads.
std::optional<CaptureManifest> parse_capture_manifest(const std::string& text, std::string& error);

}  // namespace dlready
