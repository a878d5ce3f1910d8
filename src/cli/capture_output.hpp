// Where `dlready capture` writes, each platform's twin: a folder or its tarball on Linux and macOS
// (capture/capture_tree.hpp: the files read, as a root), a folder on Windows (the answers in
// .dlready-capture/capture.json). Nothing half-written is left: the output is made beside its
// name and renamed into place.
#pragma once
#include <optional>
#include <string>

#include "cli/capture_command.hpp"
#include "core/redact.hpp"
#include "core/status.hpp"
#include "facts/access_log.hpp"
#include "facts/capture_manifest.hpp"

namespace dlready {

// The name a capture gets when none is given (in the current folder).
std::string default_capture_name(const std::string& utc_stamp);
// Why nothing can be captured into `a.out` from `a.root`, when that is so (the output exists; the
// root is a capture already).
std::optional<std::string> refuse_capture(const CaptureArgs& a);

struct CaptureOutput {
  const AccessLog* log = nullptr;
  CaptureManifest manifest;
  std::string doctor_json;  // already redacted when the capture is
};
// Writes the capture; `wrote` is what it holds, for the summary line ("1.20 MiB: 310 files, ...").
Status write_capture_output(const CaptureArgs& a, const CaptureOutput& output, const std::optional<Redactor>& redactor,
                            std::string& wrote);
// The command that replays `out` where it was written.
std::string capture_replay_command(const std::string& out);

}  // namespace dlready
