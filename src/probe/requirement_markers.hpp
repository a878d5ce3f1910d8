// PEP 508 environment markers, as pip evaluates them on a Requires-Dist line: torch's METADATA lists
// nvidia-* requirements limited by `platform_machine == "x86_64"`, so on aarch64 the CPU wheel's
// METADATA names CUDA wheels pip never installs. A reader that ignores markers calls that wheel a
// CUDA build with missing libraries.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace dlready {

// The examined machine as markers see it; an empty field is unknown (a comparison with it holds).
struct MarkerEnvironment {
  std::string sys_platform;      // linux, win32, darwin
  std::string platform_system;   // Linux, Windows, Darwin
  std::string platform_machine;  // x86_64, aarch64, AMD64, arm64
  std::string python_version;    // 3.12
};

// Whether `marker` (the text after ';') holds in `env`: an empty marker holds; an `extra == ...`
// clause does not (an extra is not installed by default); nullopt when the text is not a marker
// this reader knows (the requirement is then kept).
[[nodiscard]] std::optional<bool> marker_holds(std::string_view marker, const MarkerEnvironment& env);

}  // namespace dlready
