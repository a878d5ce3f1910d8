// `dlready launch`: options; the work is in launch/launcher.cpp.
#pragma once
#include <CLI/CLI.hpp>

#include <string>

#include "launch/launcher.hpp"

namespace dlready {

// --audit-log / --audit-sign-key of the launcher itself: a launch_start and a launch_end record
// (the ranks' own records go where their `dlready train` options say; the same file is safe).
struct LaunchAuditArgs {
  std::string audit_log, sign_key;
};

// What the preflight's snapshot reads (--root, --no-driver-probe: as dlready snapshot's).
struct LaunchSnapshotArgs {
  std::string root = "/";
  bool no_driver_probe = false;
  bool load_root_drivers = false;
  std::string nproc_per_node = "1";  // a number, gpu, cpu or auto (launch/launcher.hpp's choose_nproc)
  std::string job_token_file;
};

void add_launch_command(CLI::App& app, LaunchOptions& opt, LaunchAuditArgs& audit, LaunchSnapshotArgs& snap);
// Points the launch's preflight at this machine's snapshot, as `dlready snapshot` takes it.
void use_snapshot_for_preflight(LaunchOptions& opt, const LaunchSnapshotArgs& snap);
// --nproc-per-node's gpu/cpu/auto as a number (the GPUs from the doctor's driver probe, under --root).
Status choose_local_ranks(LaunchOptions& opt, const LaunchSnapshotArgs& snap);
int run_audited_launch(LaunchOptions opt, const LaunchAuditArgs& audit);
// A multi-node job's token (--job-token-file, else DLREADY_JOB_TOKEN) into opt.job_token; a file
// that cannot be used is an error naming it.
Status use_job_token(LaunchOptions& opt, const LaunchSnapshotArgs& snap);

}  // namespace dlready
