// Runs every probe in order and returns the facts. The only place that knows the probe order.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/access_log.hpp"
#include "core/capture_manifest.hpp"
#include "core/facts.hpp"
#include "core/redact.hpp"
#include "probe/probes.hpp"

namespace dlready {

struct GatherOptions {
  std::string root = "/";
  std::map<std::string, std::string> env;  // the process environment
  std::optional<std::string> user;         // check device nodes for this user (default: caller)
  int probe_timeout_ms = 10000;
  bool driver_probe = true;                // dlopen libcuda/libnvidia-ml in child processes
  // Under another root its driver libraries are code from that machine (or from whoever made the
  // folder): they are loaded only when asked (--load-root-drivers: fixture roots a test suite
  // built), never from a capture, which replays its recorded answers instead.
  bool load_root_drivers = false;
  std::vector<std::string> binaries;       // resolve these programs' libraries like ld.so
  std::optional<std::string> own_module;   // dlready's libdlready_train.so (the CLI knows where)
  std::optional<std::string> own_module_built_by;  // the command that builds it (a wheel-installed dlready)
  std::string cache_file;                  // probe/scan_cache.hpp; "" = no cache (--no-cache, tests)
  // Also read what --redact hides (probe_redaction_inputs), from the examined machine: its root's
  // files and its environment (a capture's recorded one under a capture's root).
  bool redaction_inputs = false;
  AccessLog* record = nullptr;             // note every read and the drivers' answers (dlready capture)
};

struct GatherResult {
  Facts facts;
  std::string error;  // set when the doctor cannot run at all (bad root, unknown user)
  // The environment and user the facts describe: the options', or a replayed capture's.
  std::map<std::string, std::string> env;
  UserIdentity user;
  bool replayed = false;  // the root is a capture (core/capture_manifest.hpp)
  std::optional<RedactionInputs> redaction;  // GatherOptions::redaction_inputs
};

// The manifest of the capture under `fs`; nullopt for any other root (and for "/"). A capture.json
// that cannot be read sets `error`.
std::optional<CaptureManifest> capture_under(const RootFs& fs, std::string& error);

GatherResult gather_facts(const GatherOptions& opt);
// The environment this executable was installed into (<prefix>/bin/dlready by pip, uvx or pipx);
// nullopt when it is not in a bin/ folder.
std::optional<std::string> own_environment();
std::map<std::string, std::string> process_environment();

}  // namespace dlready
