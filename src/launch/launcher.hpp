// `dlready launch`: starts the local ranks of a data-parallel job with the torchrun environment,
// prefixes their output with the rank, forwards SIGINT/SIGTERM, and stops every rank when one
// fails. No LibTorch: any program can be launched.
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "core/dist_defaults.hpp"

namespace dlready {

struct LaunchOptions {
  int nproc_per_node = 1;
  int nnodes = 1;
  int node_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 0;  // 0: not given; resolve_rendezvous picks a free port (one machine) or 29500
  bool standalone = false;  // torchrun's --standalone: one machine, rendezvous on a free local port
  // torchrun's --max-restarts: a rank that fails stops the others, and the whole local group starts
  // again (TORCHELASTIC_RESTART_COUNT tells them which attempt), up to this many times.
  int max_restarts = 0;
  std::string port_note;  // set by resolve_rendezvous: where a port that was not given came from
  int grace_seconds = 10;  // after a failure: SIGTERM the others, SIGKILL after this long
  std::vector<std::string> command;
  // Multi-node jobs: the launchers meet on their own port before any rank starts
  // (launch/node_link.hpp) and, unless preflight is off, compare their nodes' snapshots.
  bool preflight = true;
  int launcher_port = 0;    // 0: master_port + 1
  int dist_timeout = kDistTimeoutSeconds;  // seconds the launchers wait for each other
  // The job's shared secret (secure/job_token.hpp): hellos and verdicts carry an HMAC under it.
  // Without one, anyone who reaches the launchers' port can join the job (said at start).
  std::optional<std::string> job_token;
  // This node's snapshot (dlready.snapshot/1), taken by the caller (the CLI owns the doctor).
  std::function<Status(nlohmann::json&)> take_snapshot;
};

// Validates the options; a failure names the flag.
Status check_launch_options(const LaunchOptions& o);

// torchrun's --nproc-per-node values: a number; "gpu" (one rank per GPU CUDA would show: `gpus`,
// nullopt when unknown), "cpu" (one per processor this process may run on) or "auto" (gpu where
// there is one, else cpu). `why` says what the number stands for.
struct NprocChoice {
  std::optional<int> count;
  std::string why, error;
};
[[nodiscard]] NprocChoice choose_nproc(const std::string& spec, std::optional<int> gpus, int processors);

// Fills in what the flags left open: --standalone's one machine, and the rendezvous port (a free
// port on the rendezvous address for one machine, where no other launcher must know it; 29500, as
// torchrun's, for several). Nothing changes once the port is known.
[[nodiscard]] Status resolve_rendezvous(LaunchOptions& o);

// Runs the job. Returns 0 when every rank exits 0; otherwise the first failing rank's exit status
// (128 + signal for a rank killed by a signal); 2 for bad options or a command that cannot start.
int run_launch(LaunchOptions o);

}  // namespace dlready
