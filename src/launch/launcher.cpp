#include "launch/launcher.hpp"

#include <csignal>
#include <cstdio>

#include "launch/node_link.hpp"
#include "launch/supervisor.hpp"

namespace dlready {

Status check_launch_options(const LaunchOptions& o) {
  if (o.command.empty()) return Status::failure("no command: dlready launch --nproc-per-node N -- dlready train ...");
  if (o.nproc_per_node < 1) return Status::failure("--nproc-per-node must be at least 1");
  if (o.nnodes < 1) return Status::failure("--nnodes must be at least 1");
  if (o.node_rank < 0 || o.node_rank >= o.nnodes)
    return Status::failure("--node-rank " + std::to_string(o.node_rank) + " is outside 0.." + std::to_string(o.nnodes - 1));
  if (o.master_port < 1 || o.master_port > 65535) return Status::failure("--master-port must be 1..65535");
  if (o.master_addr.empty()) return Status::failure("--master-addr is empty");
  if (o.launcher_port < 0 || o.launcher_port > 65535) return Status::failure("--launcher-port must be 1..65535");
  if (o.nnodes > 1 && o.launcher_port == 0 && o.master_port == 65535)
    return Status::failure("--master-port 65535 leaves no port for the launchers: give --launcher-port");
  if (o.nnodes > 1 && o.launcher_port == o.master_port)
    return Status::failure("--launcher-port must differ from --master-port (rank 0 listens there)");
  if (o.dist_timeout < 1) return Status::failure("--dist-timeout must be at least 1 second");
  return {};
}

int run_launch(const LaunchOptions& o) {
  if (auto st = check_launch_options(o); !st) {
    std::fprintf(stderr, "dlready launch: %s\n", st.error().c_str());
    return 2;
  }
  // A stdout closed under the launcher (`dlready launch ... | head`) must not kill it, and with it
  // every rank: the write fails instead, and the output stops there (Supervisor::put).
  ::signal(SIGPIPE, SIG_IGN);
  Supervisor supervisor(o);
  if (auto st = supervisor.init(); !st) {
    std::fprintf(stderr, "dlready launch: %s\n", st.error().c_str());
    return 1;
  }
  int world = o.nnodes * o.nproc_per_node;
  std::fprintf(stderr, "dlready launch: %d local rank(s) of %d, node %d/%d, rendezvous %s:%d\n", o.nproc_per_node,
               world, o.node_rank, o.nnodes, o.master_addr.c_str(), o.master_port);
  std::optional<NodeWatch> watch;
  if (o.nnodes > 1) {
    auto met = meet_other_nodes(o, supervisor.signal_fd());
    if (met.exit_code != 0) return met.exit_code;
    watch = std::move(met.watch);
  }
  supervisor.start_ranks();
  int result = supervisor.run(watch ? &*watch : nullptr);
  if (watch) watch->finished(result);
  if (result == 0) std::fprintf(stderr, "dlready launch: all %d local rank(s) finished\n", o.nproc_per_node);
  return result;
}

}  // namespace dlready
