// The sources of facts the POSIX platforms' sources share (Linux's and macOS's): a root's capture and
// platform, the user, the environment, the Python environments in their POSIX layout, what --redact
// hides. Everything through RootFs.
#pragma once
#include <map>
#include <optional>
#include <string>

#include "core/redact.hpp"
#include "facts/capture_manifest.hpp"
#include "facts/facts.hpp"
#include "os/root_fs.hpp"
#include "probe/gather.hpp"
#include "probe/requirement_markers.hpp"

namespace dlready {

// The platform of the machine under `root`: its capture's; else macOS's or Windows' own files;
// else Linux (an unreadable root or capture.json too: the Linux source says what is wrong).
std::string root_platform(const std::string& root);
// The manifest of the capture under `fs`; nullopt for any other root (and for "/"). A capture.json
// that cannot be read sets `error`.
std::optional<CaptureManifest> capture_under(const RootFs& fs, std::string& error);
// The same after checking that the root can be listed at all (a root we cannot list would read as
// an empty machine); `error` says which failed.
std::optional<CaptureManifest> readable_capture(const RootFs& fs, std::string& error);

UserIdentity current_user();
// Looks the user up in <root>/etc/passwd and /etc/group; nullopt if unknown.
std::optional<UserIdentity> lookup_user(const RootFs& fs, const std::string& name);

EnvFacts probe_env(const std::map<std::string, std::string>& process_env);
// What `--redact` hides on the machine under `fs` (identity_probe.cpp).
RedactionInputs probe_redaction_inputs(const RootFs& fs, const std::map<std::string, std::string>& env);
// The Python environments, the user's first: DLREADY_PARENT_PYTHON (the interpreter that ran
// `python -m dlready`), VIRTUAL_ENV, CONDA_PREFIX, then the usual places. `own_prefix`: the
// environment that holds this dlready executable (a uvx/pipx tool environment, first on PATH):
// left out unless it is active or holds torch — it is the tool's, not the user's.
PythonFacts probe_python(const RootFs& fs, const EnvFacts& env, const std::optional<std::string>& own_prefix = std::nullopt,
                         const MarkerEnvironment& machine = {});

}  // namespace dlready
