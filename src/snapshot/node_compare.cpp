#include "snapshot/node_compare.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "snapshot/json_fields.hpp"

namespace dlready {
namespace {

using nlohmann::json;

// The PyTorch builds a node's job runs: dlready's own LibTorch when it was found, else every torch
// in a Python environment (a launched Python script runs one of them).
std::vector<StackTorch> job_builds(const Stack& s) {
  if (s.job_torch) return {*s.job_torch};
  return s.torch;
}

std::set<std::string> shown(const std::vector<StackTorch>& builds) {
  std::set<std::string> out;
  for (const auto& t : builds) out.insert(t.shown);
  return out;
}

std::string joined(const std::set<std::string>& xs) {
  std::string out;
  for (const auto& x : xs) out += (out.empty() ? "" : ", ") + x;
  return out.empty() ? "none" : out;
}

std::string major_of(const std::string& version) { return version.substr(0, version.find('.')); }

bool is_torch_item(const StackChange& c) {
  return c.area == "python" && (c.key == "dlready's LibTorch" || c.key.rfind("torch ", 0) == 0);
}

// The node's own findings that stop a process group from starting anywhere in the job.
void interface_findings(const NodeStack& n, std::vector<std::string>& blocking, std::set<std::string>& variables) {
  if (!n.findings.is_array()) return;
  for (const auto& f : n.findings) {
    if (text(field(f, "id")) != "socket-ifname-missing") continue;
    std::string evidence;
    if (field(f, "evidence").is_array())
      for (const auto& e : f.at("evidence")) {
        std::string line = text(e);
        evidence += (evidence.empty() ? "" : "; ") + line;
        if (auto eq = line.find('='); eq != std::string::npos && line.find("interfaces") != 0)
          variables.insert(line.substr(0, eq));
      }
    blocking.push_back(n.name() + ": " + text(field(f, "title")) + " (" + evidence +
                       "): its ranks cannot create the process group; set the variable to an interface that "
                       "node has, or unset it");
  }
}

void compare_builds(const NodeStack& zero, const NodeStack& n, std::vector<std::string>& blocking) {
  auto a = shown(job_builds(zero.stack)), b = shown(job_builds(n.stack));
  if (a != b)
    blocking.push_back(n.name() + " runs PyTorch " + joined(b) + ", node 0 runs " + joined(a) +
                       ": every rank must run the same release and CUDA variant (collectives and the checkpoint "
                       "format differ between builds); install node 0's build there (dlready snapshot on node 0, "
                       "then dlready export SNAPSHOT)");
  // Each side's build on the other side's driver and GPUs.
  Stack za = zero.stack, nb = n.stack;
  za.torch = job_builds(zero.stack), nb.torch = job_builds(n.stack);
  check_torch_against_driver(za, "node 0", nb, n.name(), blocking);
  check_torch_against_driver(nb, n.name(), za, "node 0", blocking);
  check_torch_against_gpus(za, "node 0", nb, n.name(), blocking);
  check_torch_against_gpus(nb, n.name(), za, "node 0", blocking);
  if (!zero.stack.nccl.empty() && !n.stack.nccl.empty() && major_of(zero.stack.nccl) != major_of(n.stack.nccl))
    blocking.push_back(n.name() + " has NCCL " + n.stack.nccl + ", node 0 " + zero.stack.nccl +
                       ": NCCL's wire protocol differs between major versions, the first collective hangs or fails");
}

}  // namespace

std::string NodeStack::name() const {
  std::string where = host;
  if (!address.empty()) where += (where.empty() ? "" : ", ") + address;
  return "node " + std::to_string(node) + (where.empty() ? "" : " (" + where + ")");
}

NodeStack node_stack(int node, const std::string& host, const std::string& address, int nproc_per_node,
                     const json& snapshot) {
  NodeStack n;
  n.node = node, n.host = host, n.address = address, n.nproc_per_node = nproc_per_node;
  n.stack = stack_from_json(snapshot);
  if (field(snapshot, "findings").is_array()) n.findings = snapshot.at("findings");
  return n;
}

NodeComparison compare_nodes(const std::vector<NodeStack>& nodes) {
  NodeComparison c;
  if (nodes.empty()) return c;
  const NodeStack& zero = nodes[0];
  std::set<std::string> bad_variables;
  interface_findings(zero, c.blocking, bad_variables);
  std::map<std::string, std::set<int>> warned;  // area -> nodes
  for (size_t i = 1; i < nodes.size(); ++i) {
    const NodeStack& n = nodes[i];
    size_t blocking_before = c.blocking.size();
    if (n.nproc_per_node != zero.nproc_per_node)
      c.blocking.push_back(n.name() + " starts " + std::to_string(n.nproc_per_node) + " rank(s), node 0 " +
                           std::to_string(zero.nproc_per_node) +
                           ": ranks are numbered node rank x --nproc-per-node + local rank, so some would collide "
                           "and others never come; give every node the same --nproc-per-node");
    compare_builds(zero, n, c.blocking);
    bool builds_differ = c.blocking.size() > blocking_before;
    std::set<std::string> node_bad = bad_variables;
    interface_findings(n, c.blocking, node_bad);
    if (n.nproc_per_node != zero.nproc_per_node)
      c.differences.push_back({n.node, {"launch", "--nproc-per-node", std::to_string(zero.nproc_per_node),
                                        std::to_string(n.nproc_per_node)}, true});
    for (const auto& d : diff_stacks(zero.stack, n.stack)) {
      bool blocks = (builds_differ && (is_torch_item(d) || d.key == "NCCL")) ||
                    (d.area == "environment" && node_bad.count(d.key));
      c.differences.push_back({n.node, d, blocks});
      if (!blocks) warned[d.area].insert(n.node);
    }
  }
  for (const auto& [area, on] : warned) {
    std::string list;
    for (int node : on) list += (list.empty() ? "" : ", ") + std::to_string(node);
    c.warnings.push_back(area + " differs on node " + list + ": " + why_it_matters(area));
  }
  return c;
}

std::string render_node_comparison(const NodeComparison& c, const std::vector<NodeStack>& nodes) {
  std::string out;
  if (c.differences.empty()) {
    out += "  every node's stack is node 0's (" + std::to_string(nodes.size()) + " node(s): driver, GPUs, CUDA "
           "libraries, PyTorch, environment)\n";
  } else {
    std::vector<std::vector<std::string>> rows{{"node", "area", "item", "node 0", "that node", ""}};
    for (const auto& d : c.differences)
      rows.push_back({std::to_string(d.node), d.change.area, d.change.key,
                      d.change.before.empty() ? "(none)" : d.change.before,
                      d.change.after.empty() ? "(none)" : d.change.after, d.blocking ? "stops the job" : "warning"});
    std::vector<size_t> width(rows[0].size(), 0);
    for (const auto& r : rows)
      for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], std::min<size_t>(r[i].size(), 48));
    for (const auto& r : rows) {
      std::string line = " ";
      for (size_t i = 0; i < r.size(); ++i) {
        std::string cell = r[i].size() > 48 ? r[i].substr(0, 45) + "..." : r[i];
        line += " " + cell + (i + 1 < r.size() ? std::string(width[i] - cell.size(), ' ') : "");
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    }
  }
  for (const auto& b : c.blocking) out += "  stops the job: " + b + "\n";
  for (const auto& w : c.warnings) out += "  warning: " + w + "\n";
  return out;
}

}  // namespace dlready
