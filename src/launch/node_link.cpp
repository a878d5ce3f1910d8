#include "launch/node_link.hpp"

#include <unistd.h>

#include <cstdio>
#include <set>

#include "snapshot/json_fields.hpp"
#include "snapshot/node_compare.hpp"

namespace dlready {
namespace {

using nlohmann::json;
using Clock = ChannelClock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::string this_host() {
  char host[256] = "";
  ::gethostname(host, sizeof host - 1);
  return host;
}

void say(const std::string& line) { std::fprintf(stderr, "dlready launch: %s\n", line.c_str()); }

// A message's fields as the other launcher sent them: a missing field or one of another type
// (another dlready version, or not a launcher at all) reads as the fallback instead of throwing.
std::string str_of(const json& m, const char* key, const std::string& fallback = "") {
  const json& v = field(m, key);
  return v.is_string() ? v.get<std::string>() : fallback;
}
int int_of(const json& m, const char* key, int fallback) {
  const json& v = field(m, key);
  return v.is_number_integer() ? v.get<int>() : fallback;
}
bool bool_of(const json& m, const char* key) {
  const json& v = field(m, key);
  return v.is_boolean() && v.get<bool>();
}

// What a node's launcher sends node 0's first.
json hello_of(const LaunchOptions& o, const json& snapshot) {
  return {{"type", "hello"}, {"node", o.node_rank}, {"nnodes", o.nnodes}, {"nproc_per_node", o.nproc_per_node},
          {"host", this_host()}, {"snapshot", snapshot}};  // null with --no-preflight
}

// A launcher's hello: a node rank and the node count at least (else it is no launcher of ours).
bool is_hello(const json& h) {
  return str_of(h, "type") == "hello" && field(h, "node").is_number_integer() && field(h, "nnodes").is_number_integer();
}

// Why a launcher's hello cannot join this job ("" when it can).
std::string refuse_hello(const json& h, const LaunchOptions& o, const std::set<int>& seen, const std::string& from) {
  int node = int_of(h, "node", -1), nnodes = int_of(h, "nnodes", -1);
  if (nnodes != o.nnodes)
    return "node " + std::to_string(node) + " (" + from + ") was started with --nnodes " + std::to_string(nnodes) +
           ", node 0 with --nnodes " + std::to_string(o.nnodes) + ": give every node the same --nnodes";
  if (node < 1 || node >= o.nnodes)
    return "the launcher at " + from + " says it is node " + std::to_string(node) + ", outside 1.." +
           std::to_string(o.nnodes - 1) + ": check its --node-rank";
  if (seen.count(node))
    return "two launchers say they are node " + std::to_string(node) + " (the second from " + from +
           "): give each node its own --node-rank";
  return "";
}

void stop_everyone(std::vector<NodeWatch::Peer>& peers, NodeConnection* extra, const std::string& why) {
  auto deadline = Clock::now() + std::chrono::seconds(5);
  json stop = {{"type", "stop"}, {"why", why}};
  for (auto& p : peers)
    if (p.conn.open()) (void)p.conn.send(stop, deadline);  // best effort: it may be gone already
  if (extra && extra->open()) (void)extra->send(stop, deadline);
}

std::string missing_nodes_text(const LaunchOptions& o, const std::set<int>& seen) {
  std::string list;
  int n = 0;
  for (int i = 1; i < o.nnodes; ++i)
    if (!seen.count(i)) list += (list.empty() ? "" : ", ") + std::to_string(i), ++n;
  return std::string(n == 1 ? "node " : "nodes ") + list + " did" + " not come within " +
         std::to_string(o.dist_timeout) + " s (--dist-timeout): start " + (n == 1 ? "its launcher" : "their launchers") +
         " with --nnodes " + std::to_string(o.nnodes) + " --master-addr " + o.master_addr +
         ", and let them reach TCP ports " + std::to_string(launcher_port(o)) + " (launchers) and " +
         std::to_string(o.master_port) + " (ranks) on this machine";
}

// Node 0: the table and the verdict, from every node's hello.
// A node started with --no-preflight sends no snapshot: it is named, not compared (an absent stack
// would read as every item missing there).
json verdict_of(const std::vector<json>& hellos, const std::vector<std::string>& addresses) {
  std::vector<NodeStack> nodes;
  std::string unchecked;
  for (size_t i = 0; i < hellos.size(); ++i) {
    if (!field(hellos[i], "snapshot").is_object()) {
      unchecked += "  not compared: node " + std::to_string(i) + " (" + str_of(hellos[i], "host") +
                   ") was started with --no-preflight\n";
      continue;
    }
    nodes.push_back(node_stack(static_cast<int>(i), str_of(hellos[i], "host"), addresses[i],
                               int_of(hellos[i], "nproc_per_node", 1), field(hellos[i], "snapshot")));
  }
  auto c = compare_nodes(nodes);
  return {{"type", "verdict"}, {"ok", c.ok()}, {"report", render_node_comparison(c, nodes) + unchecked},
          {"blocking", c.blocking.size()}, {"warnings", c.warnings.size()}};
}

NodeMeeting meet_as_node0(const LaunchOptions& o, const json& hello0, Clock::time_point t0) {
  NodeListener listener;
  if (auto st = listener.listen(launcher_port(o)); !st) {
    say(st.error());
    return {1, std::nullopt};
  }
  auto deadline = Clock::now() + std::chrono::seconds(o.dist_timeout);
  std::vector<NodeWatch::Peer> peers;
  std::vector<json> hellos(static_cast<size_t>(o.nnodes));
  std::vector<std::string> addresses(static_cast<size_t>(o.nnodes));
  hellos[0] = hello0;
  std::set<int> seen;
  while (static_cast<int>(seen.size()) < o.nnodes - 1) {
    NodeConnection c;
    if (auto st = listener.accept(c, deadline); !st) {
      if (st.error() != "timeout") say("accepting the other nodes' launchers: " + st.error());
      break;
    }
    json h;
    auto st = c.receive(h, std::min(deadline, Clock::now() + std::chrono::seconds(30)));
    if (!st || !is_hello(h)) {  // a port scanner or another program: not a reason to stop the job
      say("ignored a connection from " + c.peer_address() + ": " + (st ? "not a dlready launcher" : st.error()));
      continue;
    }
    std::string why = refuse_hello(h, o, seen, c.peer_address());
    if (!why.empty()) {
      say(why + "; stopping every node");
      stop_everyone(peers, &c, why);
      return {1, std::nullopt};
    }
    int node = h["node"].get<int>();
    seen.insert(node);
    addresses[static_cast<size_t>(node)] = c.peer_address();
    hellos[static_cast<size_t>(node)] = std::move(h);
    NodeWatch::Peer p;
    p.node = node, p.conn = std::move(c);
    p.name = "node " + std::to_string(node) + " (" + str_of(hellos[static_cast<size_t>(node)], "host") + ", " +
             p.conn.peer_address() + ")";
    peers.push_back(std::move(p));
  }
  if (static_cast<int>(seen.size()) < o.nnodes - 1) {
    std::string why = missing_nodes_text(o, seen);
    say(why);
    stop_everyone(peers, nullptr, why);
    return {1, std::nullopt};
  }
  json verdict = {{"type", "verdict"}, {"ok", true}, {"report", ""}};
  if (o.preflight) {
    verdict = verdict_of(hellos, addresses);
    std::fprintf(stderr, "dlready launch: preflight, every node against node 0 (%s):\n%s",
                 str_of(hello0, "host").c_str(), str_of(verdict, "report").c_str());
  }
  auto send_deadline = Clock::now() + std::chrono::seconds(30);
  for (auto& p : peers)
    if (auto st = p.conn.send(verdict, send_deadline); !st) say("telling " + p.name + " the verdict: " + st.error());
  say(std::string(o.preflight ? "preflight" : "meeting") + " of " + std::to_string(o.nnodes) + " nodes took " +
      std::to_string(static_cast<long>(ms_since(t0))) + " ms" +
      (bool_of(verdict, "ok") ? "" : "; the job does not start on any node"));
  if (!bool_of(verdict, "ok")) return {1, std::nullopt};
  return {0, NodeWatch(0, std::move(peers))};
}

NodeMeeting meet_node0(const LaunchOptions& o, const json& hello, Clock::time_point t0) {
  int port = launcher_port(o);
  NodeWatch::Peer p;
  p.node = 0, p.name = "node 0 (" + o.master_addr + ")";
  auto deadline = Clock::now() + std::chrono::seconds(o.dist_timeout);
  if (auto st = connect_to_node0(o.master_addr, port, deadline, p.conn); !st) {
    say("cannot reach node 0's launcher at " + o.master_addr + ":" + std::to_string(port) + " within " +
        std::to_string(o.dist_timeout) + " s (--dist-timeout; last: " + st.error() +
        "): is it running, is --master-addr node 0's address on a network both share, and is the port open?");
    return {1, std::nullopt};
  }
  json reply;
  // Node 0 waits up to --dist-timeout for the last node, then compares: wait a little longer.
  auto st = p.conn.send(hello, deadline);
  if (st) st = p.conn.receive(reply, Clock::now() + std::chrono::seconds(o.dist_timeout + 60));
  if (!st) {
    say("node 0's launcher at " + o.master_addr + ":" + std::to_string(port) + " gave no verdict: " + st.error());
    return {1, std::nullopt};
  }
  if (str_of(reply, "type") == "stop") {
    say("node 0 stopped the job: " + str_of(reply, "why", "no reason given"));
    return {1, std::nullopt};
  }
  std::string report = str_of(reply, "report");
  if (!report.empty()) std::fprintf(stderr, "dlready launch: node 0's preflight:\n%s", report.c_str());
  bool ok = str_of(reply, "type") == "verdict" && bool_of(reply, "ok");
  say(std::string(ok ? "node 0 started the job" : "node 0's preflight stopped the job") + " (" +
      std::to_string(static_cast<long>(ms_since(t0))) + " ms after this launcher started)");
  if (!ok) return {1, std::nullopt};
  std::vector<NodeWatch::Peer> peers;
  peers.push_back(std::move(p));
  return {0, NodeWatch(o.node_rank, std::move(peers))};
}

}  // namespace

int launcher_port(const LaunchOptions& o) { return o.launcher_port > 0 ? o.launcher_port : o.master_port + 1; }

NodeMeeting meet_other_nodes(const LaunchOptions& o) {
  auto t0 = Clock::now();
  json snapshot;
  if (o.preflight && o.take_snapshot) {
    if (auto st = o.take_snapshot(snapshot); !st) {
      say("preflight: cannot take this node's snapshot: " + st.error() + " (--no-preflight skips it)");
      return {1, std::nullopt};
    }
  }
  json hello = hello_of(o, snapshot);
  return o.node_rank == 0 ? meet_as_node0(o, hello, t0) : meet_node0(o, hello, t0);
}

std::vector<pollfd> NodeWatch::poll_fds() const {
  std::vector<pollfd> out;
  for (const auto& p : peers_)
    if (p.conn.open()) out.push_back({p.conn.fd(), POLLIN, 0});
  return out;
}

void NodeWatch::tell_others(const Peer& about, const std::string& why) {
  auto deadline = Clock::now() + std::chrono::seconds(2);
  for (auto& p : peers_)
    if (&p != &about && p.conn.open()) (void)p.conn.send({{"type", "stop"}, {"why", why}}, deadline);
}

std::optional<std::string> NodeWatch::on_readable() {
  std::optional<std::string> stop;
  const Peer* cause = nullptr;
  for (auto& p : peers_) {
    bool had_reason = stop.has_value();
    if (!p.conn.open()) continue;
    pollfd q{p.conn.fd(), POLLIN, 0};
    if (::poll(&q, 1, 0) <= 0) continue;
    std::vector<json> got;
    bool ended = false;
    Status st = p.conn.receive_available(got, ended);
    for (const auto& m : got) {
      std::string type = str_of(m, "type");
      if (type == "done") {
        p.finished = true;
        int rc = int_of(m, "exit", 1);
        if (rc != 0 && !stop) stop = p.name + "'s ranks failed (its launcher's exit status " + std::to_string(rc) + ")";
      } else if (type == "stop" && !stop) {
        stop = str_of(m, "why", "node 0 stopped the job");
      }
    }
    if (!st && !stop) stop = "the connection to " + p.name + " broke: " + st.error();
    if (ended) {
      p.conn.close();
      if (!p.finished && !stop)
        stop = p.name + " left the job: its launcher ended without finishing (killed?) or the network to it failed";
    }
    if (stop && !had_reason) cause = &p;
  }
  // Node 0 tells the rest of the job which node it lost, so every node names it.
  if (cause && own_ == 0) tell_others(*cause, *stop);
  return stop;
}

void NodeWatch::finished(int exit_code) {
  auto deadline = Clock::now() + std::chrono::seconds(2);
  for (auto& p : peers_) {
    if (p.conn.open()) (void)p.conn.send({{"type", "done"}, {"exit", exit_code}}, deadline);
    p.conn.close();
  }
}

}  // namespace dlready
