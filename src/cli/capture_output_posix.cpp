// `dlready capture`'s output on Linux and macOS: the capture tree (capture/capture_tree.hpp) as a
// folder, or its tarball.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "capture/capture_tree.hpp"
#include "cli/capture_output.hpp"
#include "cli/front_end.hpp"
#include "core/text.hpp"
#include "os/posix_fs.hpp"
#include "os/process_runner.hpp"
#include "os/root_fs.hpp"
#include "probe/posix/posix_probes.hpp"

namespace dlready {
namespace {

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

}  // namespace

std::string default_capture_name(const std::string& utc_stamp) { return "dlready-capture-" + utc_stamp + ".tar.gz"; }

std::optional<std::string> refuse_capture(const CaptureArgs& a) {
  struct stat st {};
  if (::lstat(a.out.c_str(), &st) == 0) return printable(a.out) + " exists: name a new file or folder (nothing was written)";
  std::string error;
  bool is_capture = capture_under(RootFs(a.root), error).has_value();
  if (!error.empty()) return error;  // a capture that lost its manifest, or a damaged one
  if (is_capture)
    return "--root " + printable(a.root) + " is a capture already: replay it with dlready doctor --root " +
           shell_quote(a.root);
  return std::nullopt;
}

// The folder (or tarball) `out`, made next to it first and renamed into place: no half capture.
Status write_capture_output(const CaptureArgs& a, const CaptureOutput& output, const std::optional<Redactor>& redactor,
                            std::string& wrote) {
  const std::string& out = a.out;
  std::string staging = path_dirname(out) + "/." + path_basename(out) + ".XXXXXX";
  if (!::mkdtemp(staging.data())) return Status::failure(path_dirname(out) + ": " + std::strerror(errno));
  std::string tree = staging + "/capture";
  CaptureContents contents{output.log, output.manifest, output.doctor_json};
  CaptureTreeStats stats;
  Status s = write_capture_tree(a.root, contents, tree, redactor, stats);
  std::string made = is_tarball(out) ? staging + "/capture.tar.gz" : tree;
  if (s.ok() && is_tarball(out)) s = run_tar(tree, made);
  if (s.ok() && ::rename(made.c_str(), out.c_str()) != 0) s = Status::failure(out + ": " + std::strerror(errno));
  remove_tree(staging);
  struct stat st {};
  std::string size = is_tarball(out) && ::stat(out.c_str(), &st) == 0 ? mib(st.st_size) + ": " : "";
  wrote = size + std::to_string(stats.files) + " files, " + std::to_string(stats.folders) + " folders, " +
          std::to_string(stats.links) + " links";
  return s;
}

std::string capture_replay_command(const std::string& out) {
  // A new folder each time: the recipe works again where an earlier one left its folder.
  return is_tarball(out) ? "d=$(mktemp -d) && tar --no-same-owner --no-same-permissions -xzf " + shell_quote(out) +
                               " -C \"$d\" && dlready doctor --root \"$d\""
                         : "dlready doctor --root " + shell_quote(out);
}

}  // namespace dlready
