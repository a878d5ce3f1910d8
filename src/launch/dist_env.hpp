// Where this process sits in a data-parallel job: rank, world size, local rank and the rendezvous
// address, from flags, else the torchrun variables, else SLURM's. Pure: no LibTorch, no I/O.
#pragma once
#include <map>
#include <optional>
#include <string>

namespace dlready {

struct DistFlags {  // command-line overrides; unset = -1 / empty
  int rank = -1, world_size = -1, local_rank = -1, master_port = -1;
  std::string master_addr;
};

struct DistConfig {
  int rank = 0, world = 1, local_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  std::string source = "single process";  // "flags", "torchrun environment", "SLURM", "single process"
  bool distributed() const { return world > 1; }
  // A process group also for a world of one when a launcher or flags asked for it (a smoke run
  // of the whole collective path on a single GPU).
  bool wants_process_group() const { return world > 1 || source != "single process"; }
};

struct DistConfigResult {
  std::optional<DistConfig> config;
  std::string error;  // names the variable or flag and what is wrong with it
};

DistConfigResult dist_config(const std::map<std::string, std::string>& env, const DistFlags& flags);

// The environment `dlready launch` (and torchrun) gives each rank.
std::map<std::string, std::string> torchrun_environment(int rank, int world, int local_rank, int local_world,
                                                        int node_rank, const std::string& master_addr,
                                                        int master_port);

}  // namespace dlready
