// `dlready capture`'s folder: the files the doctor read, as a root that `dlready doctor --root`
// replays (hwloc's gather-topology is the model). Directories and symbolic links are made as they
// are on the machine; a file holds exactly the bytes the doctor read — a large library is a sparse
// file of its real size with only its headers in it; every other path the doctor listed is an empty
// file of its name. What no file can carry (a device node, an owner, the drivers' answers) goes in
// the folder's .dlready-capture/ (stat.tsv, capture.json), with the machine's own report
// (doctor.json) to compare a replay with.
#pragma once
#include <optional>
#include <string>

#include "facts/access_log.hpp"
#include "facts/capture_manifest.hpp"
#include "core/redact.hpp"
#include "core/status.hpp"

namespace dlready {

struct CaptureContents {
  const AccessLog* log = nullptr;
  CaptureManifest manifest;
  std::string doctor_json;  // the report the machine gave, already redacted when the capture is
};

struct CaptureTreeStats {
  size_t files = 0, folders = 0, links = 0;
};

// Writes the capture of what `contents.log` recorded under `source_root` into the new folder `out`
// (which must not exist); paths and text redacted by `redactor` when there is one.
Status write_capture_tree(const std::string& source_root, const CaptureContents& contents, const std::string& out,
                          const std::optional<Redactor>& redactor, CaptureTreeStats& stats);

}  // namespace dlready
