#include "cli/launch_command.hpp"

#include <sched.h>

#include <algorithm>
#include <cstdio>

#include "cli/security_command.hpp"
#include "cli/snapshot_command.hpp"
#include "cli/usage_hints.hpp"
#include "core/text.hpp"
#include "secure/audit_log.hpp"
#include "secure/job_token.hpp"

namespace dlready {

void add_launch_command(CLI::App& app, LaunchOptions& o, LaunchAuditArgs& audit, LaunchSnapshotArgs& snap) {
  auto* cmd = app.get_subcommand("launch");
  // torchrun's spellings (--nproc_per_node ...) too, as torchrun itself accepts both.
  cmd->add_option("--nproc-per-node,--nproc_per_node", snap.nproc_per_node,
                  "Ranks on this machine: a number, gpu (one per GPU CUDA shows), cpu (one per processor) or auto "
                  "(gpu where there is one, else cpu)")
      ->type_name("TEXT:{N,gpu,cpu,auto}")
      ->capture_default_str();
  cmd->add_flag("--standalone", o.standalone, "One machine: rendezvous on 127.0.0.1 at a free port (as torchrun's)");
  cmd->add_option("--max-restarts,--max_restarts", o.max_restarts,
                  "When a rank fails, start every local rank again up to N times (one machine; the ranks read "
                  "TORCHELASTIC_RESTART_COUNT, and dlready train resumes from its checkpoint)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000));
  cmd->add_option("--nnodes", o.nnodes, "Machines in the job")->check(CLI::Range(1, 100000));
  cmd->add_option("--node-rank,--node_rank", o.node_rank, "This machine's index, 0..nnodes-1")->check(CLI::Range(0, 100000));
  cmd->add_option("--master-addr,--master_addr", o.master_addr, "Address of node 0 (rank 0 listens there)");
  cmd->add_option("--master-port,--master_port", o.master_port,
                  "TCP port of the rendezvous on node 0 (default: a free port on one machine, 29500 across machines)")
      ->check(CLI::Range(1, 65535));
  cmd->add_option("--grace", o.grace_seconds, "Seconds a rank gets to stop after SIGTERM before SIGKILL")
      ->check(CLI::Range(0, 3600));
  cmd->add_option("--launcher-port", o.launcher_port,
                  "Multi-node: TCP port on node 0 where the launchers meet (default --master-port + 1)")
      ->check(CLI::Range(1, 65535));
  cmd->add_option("--dist-timeout", o.dist_timeout,
                  "Seconds to wait for the others before failing: the launchers for every node (as train's ranks for "
                  "the rendezvous and each collective)")
      ->capture_default_str()
      ->check(CLI::Range(1, 86400));
  cmd->add_option("--job-token-file", snap.job_token_file,
                  "Multi-node: a file (chmod 600) holding the job's shared secret, the same on every node: only "
                  "launchers that know it can join or stop the job (else DLREADY_JOB_TOKEN; without either, anyone "
                  "who reaches the launchers' port can)");
  cmd->add_flag("--no-preflight", [&o](int64_t) { o.preflight = false; },
                "Multi-node: do not compare the nodes' stacks before starting (they still meet and watch each other)");
  cmd->add_option("--root", snap.root, "Preflight: read this node's stack under DIR instead of / (a capture or a mounted system)")
      ->check(CLI::ExistingDirectory);
  cmd->add_flag("--no-driver-probe", snap.no_driver_probe, "Preflight: do not load libcuda/libnvidia-ml (files only)");
  cmd->add_flag("--load-root-drivers", snap.load_root_drivers, kLoadRootDriversHelp);
  add_audit_options(cmd, audit.audit_log, audit.sign_key, "the launch's start and end");
  cmd->add_option("command", o.command, "The program each rank runs, after --")->required();
}

namespace {

// How the launch reads this node's stack: for the preflight's snapshot and for --nproc-per-node gpu.
SnapshotArgs snapshot_args_of(const LaunchSnapshotArgs& snap) {
  SnapshotArgs a;
  a.root = snap.root;
  a.no_driver_probe = snap.no_driver_probe;
  a.load_root_drivers = snap.load_root_drivers;
  return a;
}

}  // namespace

void use_snapshot_for_preflight(LaunchOptions& o, const LaunchSnapshotArgs& snap) {
  o.take_snapshot = [a = snapshot_args_of(snap)](nlohmann::json& out) { return take_snapshot(a, out); };
}

Status choose_local_ranks(LaunchOptions& o, const LaunchSnapshotArgs& snap) {
  std::optional<int> gpus;
  // Only these words need the driver probe; a number or "cpu" does not pay for it.
  if (std::string spec = to_lower(snap.nproc_per_node); spec == "gpu" || spec == "auto")
    gpus = cuda_device_count(snapshot_args_of(snap));
  cpu_set_t set;
  CPU_ZERO(&set);
  int processors = ::sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  auto choice = choose_nproc(snap.nproc_per_node, gpus, std::max(processors, 1));
  if (!choice.count) return Status::failure(choice.error);
  o.nproc_per_node = *choice.count;
  if (!choice.why.empty())
    std::fprintf(stderr, "dlready launch: --nproc-per-node %s: %d, the %s\n", printable(snap.nproc_per_node, 80).c_str(), *choice.count,
                 choice.why.c_str());
  return {};
}

Status use_job_token(LaunchOptions& o, const LaunchSnapshotArgs& snap) {
  if (o.nnodes < 2 && snap.job_token_file.empty()) return {};
  auto loaded = load_job_token(snap.job_token_file);
  if (!loaded.error.empty()) return Status::failure(loaded.error);
  o.job_token = loaded.token;
  return {};
}

int run_audited_launch(LaunchOptions o, const LaunchAuditArgs& a) {
  if (a.audit_log.empty()) return run_launch(o);
  if (auto st = resolve_rendezvous(o); !st) {  // the log names the port the ranks meet on
    std::fprintf(stderr, "dlready launch: %s\n", st.error().c_str());
    return 2;
  }
  auto opened = AuditLog::open({a.audit_log}, a.sign_key, own_command_line());
  if (!opened.log) {
    std::fprintf(stderr, "dlready launch: %s\n", opened.error.c_str());
    return 2;
  }
  nlohmann::json start = {{"nnodes", o.nnodes}, {"node_rank", o.node_rank}, {"nproc_per_node", o.nproc_per_node},
                          {"master", o.master_addr + ":" + std::to_string(o.master_port)},
                          {"ranks_run", mask_command_line(o.command)}};
  if (auto st = opened.log->append("launch_start", start); !st) {
    std::fprintf(stderr, "dlready launch: %s\n", st.error().c_str());
    return 2;
  }
  int rc = run_launch(o);
  if (auto st = opened.log->append("launch_end", {{"exit", rc}}); !st) {
    std::fprintf(stderr, "dlready launch: %s\n", st.error().c_str());
    return rc == 0 ? 1 : rc;
  }
  return rc;
}

}  // namespace dlready
