// The preflight of a multi-node job (`dlready launch --nnodes N`): every node's snapshot compared
// with node 0's before any rank starts. Differences that make the job fail (another PyTorch build,
// a GPU a node's build has no code for, a driver too old for a node's build, another NCCL major
// version, another --nproc-per-node, an interface variable naming no interface) stop the job; the
// rest are warnings. Pure: the snapshots come in as JSON, the verdict goes out as text.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "snapshot/diff.hpp"
#include "snapshot/stack.hpp"

namespace dlready {

struct NodeStack {
  int node = 0;
  std::string host, address;  // address: where node 0 saw its connection come from ("" for node 0)
  int nproc_per_node = 1;
  Stack stack;
  nlohmann::json findings = nlohmann::json::array();  // the node's doctor findings (report JSON)
  std::string name() const;  // "node 1 (host, 10.0.0.2)"
};

// A node's snapshot document (dlready.snapshot/1) as the preflight reads it.
NodeStack node_stack(int node, const std::string& host, const std::string& address, int nproc_per_node,
                     const nlohmann::json& snapshot);

struct NodeDifference {
  int node = 0;
  StackChange change;  // before = node 0's value, after = this node's
  bool blocking = false;
};

struct NodeComparison {
  std::vector<NodeDifference> differences;  // by node, then in diff_stacks' order
  std::vector<std::string> blocking;        // each names the node and why the job would fail
  std::vector<std::string> warnings;        // each names the area and why it can matter
  bool ok() const { return blocking.empty(); }
};

// nodes[0] is node 0; every other node is compared with it.
NodeComparison compare_nodes(const std::vector<NodeStack>& nodes);

// The table and the verdict as node 0 prints them (lines, each ending in '\n').
std::string render_node_comparison(const NodeComparison& c, const std::vector<NodeStack>& nodes);

}  // namespace dlready
