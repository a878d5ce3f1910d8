#include "cli/launch_command.hpp"

namespace dlready {

void add_launch_command(CLI::App& app, LaunchOptions& o) {
  auto* cmd = app.add_subcommand(
      "launch", "Start the local ranks of a data-parallel job (torchrun's environment): launch [opts] -- dlready train ...");
  cmd->add_option("--nproc-per-node", o.nproc_per_node, "Ranks on this machine (one per GPU, or CPU processes)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--nnodes", o.nnodes, "Machines in the job")->check(CLI::Range(1, 100000));
  cmd->add_option("--node-rank", o.node_rank, "This machine's index, 0..nnodes-1")->check(CLI::Range(0, 100000));
  cmd->add_option("--master-addr", o.master_addr, "Address of node 0 (rank 0 listens there)");
  cmd->add_option("--master-port", o.master_port, "TCP port of the rendezvous on node 0")->check(CLI::Range(1, 65535));
  cmd->add_option("--grace", o.grace_seconds, "Seconds a rank gets to stop after SIGTERM before SIGKILL")
      ->check(CLI::Range(0, 3600));
  cmd->add_option("command", o.command, "The program each rank runs, after --")->required();
}

}  // namespace dlready
