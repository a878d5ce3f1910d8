// The macOS source of facts over a Mac's root: its files through RootFs, sysctl's answers from the
// capture's manifest (a folder without one answers none: those facts stay unknown), the Python
// environments where Macs keep them (the POSIX layout the Linux reader knows: venvs, conda,
// Homebrew's and python.org's prefixes on PATH, pyenv), the binaries read as Mach-O.
#include "probe/posix/posix_probes.hpp"
#include "probe/macos/macos_probes.hpp"

namespace dlready {

GatherResult gather_mac(const GatherOptions& options, const MacLive* live) {
  GatherResult r;
  RootFs fs(options.root);
  auto replay = readable_capture(fs, r.error);
  if (!r.error.empty()) return r;
  const bool here = fs.is_host_root() && live;
  if (!replay) fs.record_into(options.record);  // a capture of this Mac's files (a replay records nothing)
  // A Mac's folder without a manifest says nothing of its environment: the running process's is
  // another machine's and is not used.
  r.replayed = replay.has_value();
  r.env = here ? options.env : replay ? replay->environment : std::map<std::string, std::string>{};
  if (here) r.user = current_user();
  else if (replay) r.user = {replay->user_name, replay->uid, replay->gids};
  SysctlAnswers sysctl = here ? live->sysctl : replay ? replay->sysctl : SysctlAnswers{};
  Facts& f = r.facts;
  f.root = fs.root();
  f.env = probe_env(r.env);
  MacosFacts mac;
  probe_macos_version(fs, sysctl, mac, f.os);
  probe_macos_hardware(sysctl, mac, f.os);
  // A capture without sysctl's answers still has its manifest's uname machine (dlready's own
  // process): arm64 proves Apple Silicon; x86_64 does not prove Intel (Rosetta answers x86_64).
  if (!mac.apple_silicon && replay && replay->arch == std::string("arm64")) mac.apple_silicon = true, f.os.arch = "arm64";
  // A Mac's folder without its environment: Python is looked for where a Mac's shell would find it
  // (Homebrew on Apple Silicon and Intel, python.org's framework, the system's).
  EnvFacts search = f.env;
  if (!search.get("PATH"))
    search.vars["PATH"] = "/opt/homebrew/bin:/usr/local/bin:/Library/Frameworks/Python.framework/Versions/Current/bin:/usr/bin:/bin";
  f.python = probe_python(fs, search, std::nullopt, {"darwin", "Darwin", "", ""});
  probe_mac_binaries(fs, f.python, mac);
  probe_pip_indexes(fs, r.env, f.python, mac);
  mac.metal = here ? live->metal : replay ? replay->metal : std::nullopt;
  if (here && options.record) options.record->metal = mac.metal;  // what a capture records
  f.macos = mac;
  if (options.redaction_inputs) r.redaction = probe_redaction_inputs(fs, r.env);
  return r;
}

namespace {

GatherResult gather_mac_root(const GatherOptions& options) { return gather_mac(options, nullptr); }

}  // namespace

FactSource macos_fact_source() { return {Platform::macos, gather_mac_root, root_platform}; }

}  // namespace dlready
