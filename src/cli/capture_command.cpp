#include "cli/capture_command.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "capture/capture_tree.hpp"
#include "cli/command_table.hpp"
#include "cli/front_end.hpp"
#include "cli/usage_hints.hpp"
#include "core/json_text.hpp"
#include "os/posix_fs.hpp"
#include "os/process_runner.hpp"
#include "os/root_fs.hpp"
#include "core/text.hpp"
#include "doctor/examine.hpp"
#include "probe/posix/posix_probes.hpp"
#include "report/render.hpp"
#include "platform/platform_record.hpp"

namespace dlready {

void add_capture_command(CLI::App& app, CaptureArgs& a) {
  auto* cmd = app.get_subcommand("capture");
  cmd->add_option("out", a.out,
                  "OUT.tar.gz (or .tgz), else a new folder (default: dlready-capture-<UTC date and time>.tar.gz here)");
  cmd->add_option("--root", a.root, "Capture the machine under DIR instead of / (a mounted system, or a capture to capture again)")
      ->check(CLI::ExistingDirectory);
  cmd->add_flag("--no-redact", a.no_redact, "Keep user names, home directories, host names and addresses");
  const PlatformFrontEnd& here = this_platform();
  cmd->add_flag("--no-driver-probe", a.no_driver_probe, "Do not load " + std::string(here.driver_libraries) + " (files only)");
  cmd->add_option("--probe-timeout-ms", a.timeout_ms, "Kill a driver probe that takes longer (ms)")
      ->check(CLI::Range(50, 600000));
  if (here.platform != kLinux) return;  // ld.so's resolution and a root's NVIDIA libraries are Linux's
  cmd->add_flag("--load-root-drivers", a.load_root_drivers, kLoadRootDriversHelp);
  cmd->add_option("--binary", a.binaries, "Also capture this program's shared libraries as ld.so resolves them");
}

namespace {

void say_error(const std::string& what) { std::fprintf(stderr, "dlready capture: %s\n", what.c_str()); }

bool is_tarball(const std::string& out) { return ends_with(out, ".tar.gz") || ends_with(out, ".tgz"); }

// tar with holes kept (a library's copy is its headers in a file of its real size) and no owner
// names (they would name the user a redacted capture hides). GNU tar on Linux; macOS's bsdtar
// keeps holes by itself and spells the owner --uid/--gid.
Status run_tar(const std::string& folder, const std::string& tarball) {
  std::vector<std::string> args =
      this_platform().platform == kLinux
          ? std::vector<std::string>{"tar", "--sparse", "--numeric-owner", "--owner=0", "--group=0", "-czf", tarball,
                                     "-C", folder, "."}
          : std::vector<std::string>{"tar", "--numeric-owner", "--uid", "0", "--gid", "0", "-czf", tarball, "-C", folder, "."};
  int status = run_program(args).status;
  if (status == 127)
    return Status::failure("cannot run tar: install tar, or capture into a folder (a name without .tar.gz)");
  if (status != 0) return Status::failure("tar could not write " + tarball + " (exit status " + std::to_string(status) + ")");
  return Status();
}

std::string mib(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

// The folder (or tarball) `out`, made next to it first and renamed into place: no half capture.
Status write_capture(const std::string& root, const CaptureContents& contents, const std::string& out,
                     const std::optional<Redactor>& redactor, CaptureTreeStats& stats) {
  std::string staging = path_dirname(out) + "/." + path_basename(out) + ".XXXXXX";
  if (!::mkdtemp(staging.data())) return Status::failure(path_dirname(out) + ": " + std::strerror(errno));
  std::string tree = staging + "/capture";
  Status s = write_capture_tree(root, contents, tree, redactor, stats);
  std::string made = is_tarball(out) ? staging + "/capture.tar.gz" : tree;
  if (s.ok() && is_tarball(out)) s = run_tar(tree, made);
  if (s.ok() && ::rename(made.c_str(), out.c_str()) != 0) s = Status::failure(out + ": " + std::strerror(errno));
  remove_tree(staging);
  return s;
}

}  // namespace

ExitCode run_capture(const CaptureArgs& given) {
  CaptureArgs a = given;
  if (a.out.empty()) a.out = "dlready-capture-" + utc_now("%Y%m%d-%H%M%S") + ".tar.gz";
  struct stat st {};
  if (::lstat(a.out.c_str(), &st) == 0) {
    say_error(printable(a.out) + " exists: name a new file or folder (nothing was written)");
    return ExitCode::usage;
  }
  std::string error;
  bool is_capture = capture_under(RootFs(a.root), error).has_value();
  if (!error.empty()) {  // a capture that lost its manifest, or a damaged one
    say_error(error);
    return ExitCode::usage;
  }
  if (is_capture) {
    say_error("--root " + printable(a.root) + " is a capture already: replay it with dlready doctor --root " +
              shell_quote(a.root));
    return ExitCode::usage;
  }
  AccessLog log;
  GatherOptions opt;
  opt.root = a.root;
  opt.env = process_environment();
  opt.probe_timeout_ms = a.timeout_ms;
  opt.driver_probe = !a.no_driver_probe;
  opt.load_root_drivers = a.load_root_drivers;
  opt.binaries = a.binaries;
  opt.record = &log;  // and no scan cache: a cached answer would leave its files out of the capture
  complete_live_options(opt, false);  // no scan cache: a cached answer would leave its files out
  opt.redaction_inputs = !a.no_redact;
  auto e = examine(opt);
  if (!e.error.empty()) {
    say_error(e.error);
    return ExitCode::usage;
  }
  std::optional<Redactor> redactor;
  if (e.redaction) redactor.emplace(capture_redaction(*e.redaction));
  auto report = report_json(e.facts, e.report);
  CaptureContents contents;
  contents.log = &log;
  contents.doctor_json = json_text(redactor ? redactor->apply(report) : report, 2) + "\n";
  CaptureManifest& m = contents.manifest;
  m.dlready_version = DLREADY_VERSION;
  m.created = utc_now();
  m.redacted = redactor.has_value();
  m.environment = e.facts.env.vars;
  m.user_name = e.user.name;
  m.uid = e.user.uid;
  m.gids = e.user.gids;
  m.arch = e.facts.os.arch;
  m.own_module = opt.own_module;
  m.children = log.children;
  m.gpu_code = log.gpu_code;
  m.platform = std::string(platform_of(e.facts).name);
  m.sysctl = log.sysctl;
  m.metal = log.metal;
  CaptureTreeStats stats;
  if (auto s = write_capture(a.root, contents, a.out, redactor, stats); !s.ok()) {
    say_error(s.error() + " (nothing was written)");
    return ExitCode::failed;
  }
  std::string size = is_tarball(a.out) && ::stat(a.out.c_str(), &st) == 0 ? mib(st.st_size) + ": " : "";
  std::printf("dlready capture: wrote %s (%s%zu files, %zu folders, %zu links)\n", printable(a.out).c_str(), size.c_str(),
              stats.files, stats.folders, stats.links);
  std::printf("  %s\n", redactor ? ("hidden: " + redactor->summary()).c_str()
                                 : "not redacted (--no-redact): it holds this machine's names");
  // A new folder each time: the recipe works again where an earlier one left its folder.
  std::string replay = is_tarball(a.out) ? "d=$(mktemp -d) && tar --no-same-owner --no-same-permissions -xzf " +
                                               shell_quote(a.out) + " -C \"$d\" && dlready doctor --root \"$d\""
                                         : "dlready doctor --root " + shell_quote(a.out);
  std::printf("  replay it: %s\n", replay.c_str());
  return ExitCode::ok;
}

}  // namespace dlready
