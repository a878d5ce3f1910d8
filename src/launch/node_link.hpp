// How the launchers of a multi-node job meet before any rank starts, and watch each other while it
// runs. Before: every node's launcher sends node 0's launcher who it is and (unless --no-preflight)
// its snapshot; node 0 compares every node with itself (snapshot/node_compare), prints one table and
// sends the verdict to all, so a job whose nodes differ in a way that breaks it stops on every node
// with the reason, before training. During: a launcher that ends without saying so (killed, lost
// network) is named by the others, which stop their ranks at once.
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <poll.h>
#include <set>
#include <string>
#include <vector>

#include "launch/launcher.hpp"
#include "launch/node_channel.hpp"

namespace dlready {

// The links kept for the job: on node 0 one per other node, elsewhere the one to node 0.
class NodeWatch {
 public:
  struct Peer {
    int node = 0;
    std::string name;  // "node 1 (host, 10.0.0.2)"
    NodeConnection conn;
    bool finished = false;  // it said its ranks ended
    std::string reply_nonce;  // node 0: the nonce of this node's hello (what node 0's answers are bound to)
  };
  NodeWatch(int own_node, std::vector<Peer> peers) : own_(own_node), peers_(std::move(peers)) {}

  // The sockets to poll (POLLIN), one per open peer.
  std::vector<pollfd> poll_fds() const;
  // After poll: reads what the peers sent. Returns why this node must stop its ranks, if it must.
  std::optional<std::string> on_readable();
  // This node's ranks ended with `exit_code`: tells the peers (so none mistakes the closed
  // connection for a lost node) and closes the links.
  void finished(int exit_code);

 private:
  void tell_others(const Peer& about, const std::string& why);
  int own_;
  std::vector<Peer> peers_;
};

struct NodeMeeting {
  int exit_code = 0;   // 0: start the ranks; else the launch's exit status (the reason was printed)
  std::optional<NodeWatch> watch;
};

// Takes this node's snapshot (through `take_snapshot`, unless --no-preflight) and meets the other
// nodes' launchers, printing the preflight's table and cost (node 0) or its verdict (the others).
// Every wait ends at --dist-timeout, or at once when `signal_fd` (the supervisor's signalfd) has a
// SIGINT or SIGTERM (exit status 128 + the signal); a node that never came is named.
NodeMeeting meet_other_nodes(const LaunchOptions& o, int signal_fd = -1);

// A launcher's hello: a node rank and the node count at least (else it is no launcher of ours).
bool is_hello(const nlohmann::json& hello);
// Whether a launcher's hello can join a job of `nnodes` nodes whose nodes `seen` have joined, else
// why not: another --nnodes, a node number outside 1..nnodes-1 (or outside int's range), a second
// node N.
[[nodiscard]] Status hello_refusal(const nlohmann::json& hello, int nnodes,
                                   const std::set<int>& seen, const std::string& from);

// The port of the launchers' own connections: --launcher-port, else --master-port + 1.
int launcher_port(const LaunchOptions& o);

}  // namespace dlready
