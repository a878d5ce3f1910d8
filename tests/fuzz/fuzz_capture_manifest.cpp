// Fuzzes what `dlready doctor --root` reads first from a capture made by a stranger: capture.json
// (facts/capture_manifest), a Windows machine's answers included. Any bytes give a manifest or one
// line saying why not, never an exception; a manifest read back writes and reads again to the same
// manifest.
#include <cstddef>
#include <cstdint>
#include <string>

#include "facts/capture_manifest.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::string error;
  auto m = dlready::parse_capture_manifest(text, error);
  if (!m) {
    if (error.empty() || error.find('\n') != std::string::npos) __builtin_trap();
    return 0;
  }
  if (m->format != dlready::CaptureManifest::kFormat) __builtin_trap();
  std::string again_error;
  auto again = dlready::parse_capture_manifest(dlready::capture_manifest_json(*m), again_error);
  if (!again || again->environment != m->environment || again->children.size() != m->children.size()) __builtin_trap();
  // A Windows machine's answers come back as they went (facts/windows_answers.hpp).
  if (again->windows.has_value() != m->windows.has_value()) __builtin_trap();
  if (m->windows && (again->windows->files != m->windows->files || again->windows->ranges != m->windows->ranges ||
                     again->windows->registry_texts != m->windows->registry_texts ||
                     again->windows->listings != m->windows->listings))
    __builtin_trap();
  return 0;
}
