#include "launch/dist_env.hpp"

#include <charconv>

namespace dlready {
namespace {

// A whole non-negative decimal number, or nullopt.
std::optional<int> parse_int(const std::string& s) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

struct Reader {
  const std::map<std::string, std::string>& env;
  std::string error;
  bool has(const char* k) const { return env.count(k) > 0; }
  std::optional<int> num(const char* k) {
    auto it = env.find(k);
    if (it == env.end()) return std::nullopt;
    auto v = parse_int(it->second);
    if (!v && error.empty()) error = std::string(k) + "='" + it->second + "' is not a non-negative integer";
    return v;
  }
  std::string str(const char* k, const std::string& fallback) const {
    auto it = env.find(k);
    return it == env.end() || it->second.empty() ? fallback : it->second;
  }
};

}  // namespace

DistConfigResult dist_config(const std::map<std::string, std::string>& env, const DistFlags& flags) {
  DistConfig c;
  Reader r{env, ""};
  if (r.has("WORLD_SIZE") || r.has("RANK")) {
    c.source = "torchrun environment";
    c.world = r.num("WORLD_SIZE").value_or(1);
    c.rank = r.num("RANK").value_or(0);
    c.local_rank = r.num("LOCAL_RANK").value_or(c.rank);
  } else if (r.has("SLURM_NTASKS") && r.has("SLURM_PROCID")) {
    c.source = "SLURM";
    c.world = r.num("SLURM_NTASKS").value_or(1);
    c.rank = r.num("SLURM_PROCID").value_or(0);
    c.local_rank = r.num("SLURM_LOCALID").value_or(0);
    // SLURM names no rendezvous host; the launch node's address is the usual choice.
    c.master_addr = r.str("SLURM_LAUNCH_NODE_IPADDR", c.master_addr);
  }
  c.master_addr = r.str("MASTER_ADDR", c.master_addr);
  if (auto p = r.num("MASTER_PORT")) c.master_port = *p;
  if (!r.error.empty()) return {std::nullopt, r.error};

  bool any_flag = flags.rank >= 0 || flags.world_size >= 0 || flags.local_rank >= 0 || flags.master_port >= 0 ||
                  !flags.master_addr.empty();
  if (any_flag) c.source = "flags";
  if (flags.world_size >= 0) c.world = flags.world_size;
  if (flags.rank >= 0) c.rank = flags.rank;
  if (flags.local_rank >= 0) c.local_rank = flags.local_rank;
  else if (flags.rank >= 0 && c.source == "flags" && !r.has("LOCAL_RANK")) c.local_rank = flags.rank;
  if (flags.master_port >= 0) c.master_port = flags.master_port;
  if (!flags.master_addr.empty()) c.master_addr = flags.master_addr;

  if (c.world < 1) return {std::nullopt, "the world size must be at least 1 (got " + std::to_string(c.world) + ")"};
  if (c.rank >= c.world)
    return {std::nullopt, "rank " + std::to_string(c.rank) + " is outside a world of " + std::to_string(c.world) +
                              " (ranks are 0.." + std::to_string(c.world - 1) + ")"};
  if (c.master_port < 1 || c.master_port > 65535)
    return {std::nullopt, "master port " + std::to_string(c.master_port) + " is not a TCP port (1..65535)"};
  return {c, ""};
}

std::map<std::string, std::string> torchrun_environment(int rank, int world, int local_rank, int local_world,
                                                        int node_rank, const std::string& master_addr,
                                                        int master_port) {
  return {{"RANK", std::to_string(rank)},
          {"WORLD_SIZE", std::to_string(world)},
          {"LOCAL_RANK", std::to_string(local_rank)},
          {"LOCAL_WORLD_SIZE", std::to_string(local_world)},
          {"GROUP_RANK", std::to_string(node_rank)},
          {"NODE_RANK", std::to_string(node_rank)},
          {"MASTER_ADDR", master_addr},
          {"MASTER_PORT", std::to_string(master_port)}};
}

}  // namespace dlready
