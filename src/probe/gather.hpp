// The doctor's one verb: every probe of the examined machine in order, its facts. One declaration;
// each platform's source of facts defines it (probe/linux/gather_linux.cpp, probe/windows/
// gather_windows.cpp), the build choosing which; the only place that knows a platform's probe order.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "facts/access_log.hpp"
#include "facts/capture_manifest.hpp"
#include "facts/facts.hpp"
#include "core/redact.hpp"

namespace dlready {

// Who the device-node permission check is for.
struct UserIdentity {
  std::string name;
  unsigned uid = 0;
  std::vector<unsigned> gids;
};

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

// A platform honours the options it has a meaning for; the rest it names in `error` when set
// (another root on a build whose source of facts reads only its own machine).
GatherResult gather_facts(const GatherOptions& opt);
// The process's environment as UTF-8 (names as the platform spells them).
std::map<std::string, std::string> process_environment();

}  // namespace dlready
