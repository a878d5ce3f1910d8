// The doctor's one verb: the examined machine's facts. For the live machine the build chooses the
// source of facts; under a root the examined machine does (its capture's platform, or its files),
// so a Linux binary replays a capture made on another platform whose source it has (probe/gather.cpp).
// Each source knows its platform's probe order (probe/linux/gather_linux.cpp,
// probe/windows/gather_windows.cpp).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "facts/access_log.hpp"
#include "platform/platform.hpp"
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
  // Where the module's torch is when its run path's is gone (cli/module_torch.hpp): the same build
  // in the user's environment (its torch/lib), or why it cannot load.
  std::optional<std::string> own_module_torch_lib, own_module_problem;
  std::string cache_file;                  // probe/linux/scan_cache.hpp; "" = no cache (--no-cache, tests)
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
  bool replayed = false;  // the root is a capture (facts/capture_manifest.hpp)
  std::optional<RedactionInputs> redaction;  // GatherOptions::redaction_inputs
};

// One platform's source of facts. `platform_of` (sources that read roots) names the platform of the
// machine under a root: its capture's, else what its files say.
struct FactSource {
  Platform platform;  // whose machines it reads (platform/platform_record.hpp)
  GatherResult (*gather)(const GatherOptions&) = nullptr;
  std::string (*platform_of)(const std::string& root) = nullptr;
};
// The sources this build has, the live machine's first (probe/fact_sources_<platform>.cpp).
[[nodiscard]] std::vector<FactSource> fact_sources();

// A source honours the options it has a meaning for; a root no source of this build reads is named
// in `error`, with where it can be read.
[[nodiscard]] GatherResult gather_facts(const GatherOptions& opt);
// The process's environment as UTF-8 (names as the platform spells them).
std::map<std::string, std::string> process_environment();

}  // namespace dlready
