// A root's capture and its platform, for every source of facts that reads a root through RootFs.
#include <unistd.h>

#include "core/text.hpp"
#include "platform/platform_record.hpp"
#include "probe/posix/posix_probes.hpp"

namespace dlready {

std::optional<CaptureManifest> capture_under(const RootFs& fs, std::string& error) {
  if (fs.is_host_root() || !fs.exists(RootFs::kCaptureDir)) return std::nullopt;
  // A capture that lost its manifest (left out of the archive, a dangling link) has lost its driver
  // answers too: it cannot be replayed, and is not read as a plain folder either.
  std::string file = std::string(RootFs::kCaptureDir) + "/capture.json";
  auto st = fs.stat(file);
  auto text = st && st->is_regular ? fs.read(file, 64 << 20) : std::nullopt;
  if (!text) {
    error = printable(fs.host(file)) + (st ? " cannot be read" : " is missing") +
            ": this capture cannot be replayed without it (ask for the whole archive, made by dlready capture)";
    return std::nullopt;
  }
  auto m = parse_capture_manifest(*text, error);
  if (!m) error = fs.host(file) + ": " + error + " (make the capture again with this dlready on that machine: dlready capture OUT)";
  return m;
}

std::optional<CaptureManifest> readable_capture(const RootFs& fs, std::string& error) {
  // A root we cannot list would read as an empty machine ("no NVIDIA GPU"): refuse it instead.
  if (!fs.is_dir("/") || ::access(fs.host("/").c_str(), R_OK | X_OK) != 0) {
    error = "--root " + fs.root() + " is not a readable directory (check its permissions)";
    return std::nullopt;
  }
  return capture_under(fs, error);
}

// The platform of the machine under `root`: its capture's; else macOS's or Windows' own files;
// else Linux (an unreadable root or capture.json too: the Linux source says what is wrong).
std::string root_platform(const std::string& root) {
  RootFs fs(root);
  std::string error;
  if (auto manifest = capture_under(fs, error)) return manifest->platform;
  auto name = [](Platform p) { return std::string(platform_record(p).name); };
  if (!error.empty()) return name(Platform::linux);
  if (fs.exists("/System/Library/CoreServices/SystemVersion.plist")) return name(Platform::macos);
  if (fs.is_dir("/Windows/System32")) return name(Platform::windows);
  return name(Platform::linux);
}

}  // namespace dlready
