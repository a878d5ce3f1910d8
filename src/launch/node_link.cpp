#include "launch/node_link.hpp"

#include <unistd.h>

#include <sys/signalfd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <set>

#include "core/text.hpp"
#include "secure/job_token.hpp"
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
  if (!v.is_number_integer()) return fallback;
  // 4294967297 is not node 1: a number outside int's range is no node number at all.
  if (v.is_number_unsigned()) return v.get<uint64_t>() <= INT32_MAX ? static_cast<int>(v.get<uint64_t>()) : fallback;
  int64_t n = v.get<int64_t>();
  return n >= INT32_MIN && n <= INT32_MAX ? static_cast<int>(n) : fallback;
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

}  // namespace

bool is_hello(const json& h) {
  return str_of(h, "type") == "hello" && field(h, "node").is_number_integer() && field(h, "nnodes").is_number_integer();
}

Status hello_refusal(const json& h, int nnodes_here, const std::set<int>& seen,
                     const std::string& from) {
  int node = int_of(h, "node", -1), nnodes = int_of(h, "nnodes", -1);
  if (nnodes != nnodes_here)
    return Status::failure("node " + std::to_string(node) + " (" + from +
                           ") was started with --nnodes " + std::to_string(nnodes) +
                           ", node 0 with --nnodes " + std::to_string(nnodes_here) +
                           ": give every node the same --nnodes");
  if (node < 1 || node >= nnodes_here)
    return Status::failure("the launcher at " + from + " says it is node " + std::to_string(node) +
                           ", outside 1.." + std::to_string(nnodes_here - 1) +
                           ": check its --node-rank");
  if (seen.count(node))
    return Status::failure("two launchers say they are node " + std::to_string(node) +
                           " (the second from " + from + "): give each node its own --node-rank");
  return {};
}

namespace {

// `message` with the MAC a node checks (its own nonce) when the job has a token.
json signed_for(json message, const std::optional<std::string>& token, const std::string& nonce) {
  if (token) message["mac"] = message_mac(*token, nonce, message);
  return message;
}

void stop_everyone(std::vector<NodeWatch::Peer>& peers, const std::string& why, const std::optional<std::string>& token) {
  auto deadline = Clock::now() + std::chrono::seconds(5);
  json stop = {{"type", "stop"}, {"why", why}};
  for (auto& p : peers)
    if (p.conn.open()) (void)p.conn.send(signed_for(stop, token, p.reply_nonce), deadline);  // best effort
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

// A signal (SIGINT, SIGTERM) that arrived on the supervisor's signalfd while the launchers met:
// the signal number, or 0.
int take_stop_signal(int signal_fd) {
  if (signal_fd < 0) return 0;
  signalfd_siginfo si;
  int sig = 0;
  while (::read(signal_fd, &si, sizeof si) == static_cast<ssize_t>(sizeof si))
    if (si.ssi_signo != SIGCHLD) sig = static_cast<int>(si.ssi_signo);
  return sig;
}

// Node 0's side of the meeting: every connection at once (poll), so a stranger that says nothing,
// or says it slowly, holds up no launcher. A connection first gets a challenge; a launcher's
// hello must come within a few seconds, whole within --dist-timeout, and (with a job token) carry
// the token's MAC over the challenge. Anything else is a stranger: named in the log (the first
// few), refused, never obeyed.
class Node0Meeting {
 public:
  Node0Meeting(const LaunchOptions& o, int signal_fd) : o_(o), signal_fd_(signal_fd) {}
  NodeMeeting run(const json& hello0, Clock::time_point t0);

 private:
  struct Guest {
    NodeConnection conn;
    std::string nonce;
    Clock::time_point first_bytes_by, whole_by;
  };
  static constexpr size_t kMaxGuests = 32;
  static constexpr std::chrono::seconds kFirstBytes{3};
  // A launcher sends its whole hello at once (a few KB): a slot held longer, byte by byte, is a
  // stranger's, and would keep the job's own nodes out until --dist-timeout.
  static constexpr std::chrono::seconds kWholeHello{10};

  void accept_guests();
  // What a guest sent: its hello (it joins, is refused, or stops the job), or how it failed.
  void on_guest(Guest& g);
  void on_hello(Guest& g, json& h);
  // Closes a stranger's connection, naming it (the first few); `answer`: sent first.
  void ignore(Guest& g, const std::string& why, const json& answer = nullptr);
  NodeMeeting stop_job(const std::string& why, int code);
  NodeMeeting finish(const json& hello0, Clock::time_point t0);

  const LaunchOptions& o_;
  int signal_fd_;
  NodeListener listener_;
  Clock::time_point deadline_;
  std::vector<Guest> guests_;
  std::vector<NodeWatch::Peer> peers_;
  std::vector<json> hellos_;
  std::vector<std::string> addresses_, refused_;
  std::set<int> seen_;
  size_t ignored_ = 0;
  std::optional<std::string> stop_;
};

void Node0Meeting::ignore(Guest& g, const std::string& why, const json& answer) {
  bool tell = !answer.is_null();
  if (tell) (void)g.conn.send(answer, Clock::now() + std::chrono::seconds(1));
  ++ignored_;
  // The first few by name; then one line per hundred, so a flood cannot flood the log.
  if (ignored_ <= 5) say("ignored a connection from " + printable(g.conn.peer_address()) + ": " + printable(why));
  else if (ignored_ % 100 == 0) say("ignored " + std::to_string(ignored_) + " connections so far (none a launcher of this job)");
  if (tell && refused_.size() < 5) refused_.push_back(g.conn.peer_address() + ": " + why);
  g.conn.close();
}

void Node0Meeting::accept_guests() {
  for (;;) {
    NodeConnection c;
    if (auto st = listener_.accept(c, Clock::now()); !st) return;  // nothing more waiting
    Guest g{std::move(c), new_nonce(), Clock::now() + kFirstBytes, std::min(deadline_, Clock::now() + kWholeHello)};
    g.conn.set_max_message(kMaxNodeMessage);
    // Every slot taken: the one waiting longest for a hello makes room (a launcher of this job
    // sends its hello within milliseconds of connecting, so the newcomer is never the one to go).
    auto open = [](const Guest& x) { return x.conn.open(); };
    if (static_cast<size_t>(std::count_if(guests_.begin(), guests_.end(), open)) >= kMaxGuests)
      ignore(*std::find_if(guests_.begin(), guests_.end(), open),
             std::to_string(kMaxGuests) + " connections at once: the oldest without a hello made room");
    if (auto st = g.conn.send({{"type", "challenge"}, {"nonce", g.nonce}}, Clock::now() + std::chrono::seconds(1)); !st) {
      ignore(g, st.error());
      continue;
    }
    guests_.push_back(std::move(g));
  }
}

void Node0Meeting::on_hello(Guest& g, json& h) {
  std::string from = g.conn.peer_address();
  if (!is_hello(h)) return ignore(g, "not a dlready launcher");
  bool authentic = o_.job_token && message_mac_ok(*o_.job_token, g.nonce, h);
  auto refusal = [&](const std::string& why) {
    return signed_for({{"type", "refused"}, {"why", why}}, authentic ? o_.job_token : std::nullopt, str_of(h, "nonce"));
  };
  if (o_.job_token && !authentic) {
    std::string why = "its hello does not carry this job's token (--job-token-file / DLREADY_JOB_TOKEN)";
    return ignore(g, why, refusal(why));
  }
  if (Status joins = hello_refusal(h, o_.nnodes, seen_, from); !joins.ok()) {
    const std::string& why = joins.error();
    // A launcher that proved it belongs to this job but was started wrongly stops the job; an
    // unproven one is only refused (it may be anyone).
    if (authentic) stop_ = why;
    return ignore(g, why, refusal(why));
  }
  int node = int_of(h, "node", -1);  // in 1..nnodes-1: hello_refusal said so
  seen_.insert(node);
  addresses_[static_cast<size_t>(node)] = from;
  NodeWatch::Peer p;
  p.node = node;
  p.name = "node " + std::to_string(node) + " (" + printable(str_of(h, "host"), 255) + ", " + from + ")";
  p.reply_nonce = str_of(h, "nonce");
  p.conn = std::move(g.conn);
  hellos_[static_cast<size_t>(node)] = std::move(h);
  peers_.push_back(std::move(p));
}

void Node0Meeting::on_guest(Guest& g) {
  std::vector<json> got;
  bool ended = false;
  Status st = g.conn.receive_available(got, ended);
  if (!got.empty()) return on_hello(g, got.front());
  if (!st) return ignore(g, st.error());
  if (ended) return ignore(g, "it closed the connection without a hello");
}

NodeMeeting Node0Meeting::stop_job(const std::string& why, int code) {
  say(why + "; stopping every node");
  stop_everyone(peers_, why, o_.job_token);
  return {code, std::nullopt};
}

NodeMeeting Node0Meeting::run(const json& hello0, Clock::time_point t0) {
  if (auto st = listener_.listen(launcher_port(o_)); !st) {
    say(st.error());
    return {1, std::nullopt};
  }
  deadline_ = Clock::now() + std::chrono::seconds(o_.dist_timeout);
  hellos_.assign(static_cast<size_t>(o_.nnodes), json());
  addresses_.assign(static_cast<size_t>(o_.nnodes), "");
  hellos_[0] = hello0;
  while (static_cast<int>(seen_.size()) < o_.nnodes - 1 && !stop_ && Clock::now() < deadline_) {
    auto wake = deadline_;
    std::vector<pollfd> fds = {{listener_.fd(), POLLIN, 0}, {signal_fd_, POLLIN, 0}};
    for (const auto& g : guests_) {
      fds.push_back({g.conn.fd(), POLLIN, 0});
      wake = std::min(wake, g.conn.has_partial_input() ? g.whole_by : g.first_bytes_by);
    }
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(wake - Clock::now()).count();
    ::poll(fds.data(), fds.size(), static_cast<int>(std::clamp<long long>(ms, 0, 1000)));
    if (int sig = take_stop_signal(signal_fd_))
      return stop_job(std::string("got ") + ::strsignal(sig) + " while waiting for the other nodes", 128 + sig);
    if (fds[0].revents & POLLIN) accept_guests();
    for (size_t i = 0; i < guests_.size() && i + 2 < fds.size(); ++i)
      if (guests_[i].conn.open() && (fds[i + 2].revents & (POLLIN | POLLHUP | POLLERR))) on_guest(guests_[i]);
    auto now = Clock::now();
    for (auto& g : guests_)
      if (g.conn.open() && now > (g.conn.has_partial_input() ? g.whole_by : g.first_bytes_by))
        ignore(g, "it sent no launcher's hello in time");
    std::erase_if(guests_, [](const Guest& g) { return !g.conn.open(); });
  }
  if (stop_) return stop_job(*stop_, 1);
  return finish(hello0, t0);
}

NodeMeeting Node0Meeting::finish(const json& hello0, Clock::time_point t0) {
  if (static_cast<int>(seen_.size()) < o_.nnodes - 1) {
    std::string why = missing_nodes_text(o_, seen_);
    if (!refused_.empty()) why += " (refused: " + printable(join(refused_, "; ")) + ")";
    return stop_job(why, 1);
  }
  json verdict = {{"type", "verdict"}, {"ok", true}, {"report", ""}};
  if (o_.preflight) {
    verdict = verdict_of(hellos_, addresses_);
    std::fprintf(stderr, "dlready launch: preflight, every node against node 0 (%s):\n%s",
                 printable(str_of(hello0, "host"), 255).c_str(), printable_lines(str_of(verdict, "report")).c_str());
  }
  auto send_deadline = Clock::now() + std::chrono::seconds(30);
  for (auto& p : peers_)
    if (auto st = p.conn.send(signed_for(verdict, o_.job_token, p.reply_nonce), send_deadline); !st)
      say("telling " + p.name + " the verdict: " + st.error());
  say(std::string(o_.preflight ? "preflight" : "meeting") + " of " + std::to_string(o_.nnodes) + " nodes took " +
      std::to_string(static_cast<long>(ms_since(t0))) + " ms" +
      (bool_of(verdict, "ok") ? "" : "; the job does not start on any node"));
  if (!bool_of(verdict, "ok")) return {1, std::nullopt};
  return {0, NodeWatch(0, std::move(peers_))};
}

// What node 0 answered, read the way this node trusts it: with a job token, only an answer that
// carries the token's MAC over this node's own nonce counts.
NodeMeeting read_node0_answer(const LaunchOptions& o, const json& reply, const std::string& nonce,
                              NodeWatch::Peer p, Clock::time_point t0) {
  std::string type = str_of(reply, "type");
  if (o.job_token && !message_mac_ok(*o.job_token, nonce, reply)) {
    say("the launcher at " + o.master_addr + " answered without this job's token: is node 0 started with the same "
        "--job-token-file (or DLREADY_JOB_TOKEN)? stopping");
    return {1, std::nullopt};
  }
  if (type == "stop" || type == "refused") {
    say(std::string(type == "stop" ? "node 0 stopped the job: " : "node 0 refused this launcher: ") +
        printable(str_of(reply, "why", "no reason given")));
    return {1, std::nullopt};
  }
  std::string report = str_of(reply, "report");
  if (!report.empty()) std::fprintf(stderr, "dlready launch: node 0's preflight:\n%s", printable_lines(report).c_str());
  bool ok = type == "verdict" && bool_of(reply, "ok");
  say(std::string(ok ? "node 0 started the job" : "node 0's preflight stopped the job") + " (" +
      std::to_string(static_cast<long>(ms_since(t0))) + " ms after this launcher started)");
  if (!ok) return {1, std::nullopt};
  std::vector<NodeWatch::Peer> peers;
  peers.push_back(std::move(p));
  return {0, NodeWatch(o.node_rank, std::move(peers))};
}

NodeMeeting meet_node0(const LaunchOptions& o, json hello, Clock::time_point t0, int signal_fd) {
  int port = launcher_port(o);
  NodeWatch::Peer p;
  p.node = 0, p.name = "node 0 (" + o.master_addr + ")";
  auto deadline = Clock::now() + std::chrono::seconds(o.dist_timeout);
  auto interrupted = [&](const Status& st) {
    if (st || st.error() != "interrupted") return NodeMeeting{-1, std::nullopt};
    int sig = take_stop_signal(signal_fd);
    if (!sig) return NodeMeeting{-1, std::nullopt};
    say(std::string("got ") + ::strsignal(sig) + " while waiting for node 0; stopping");
    return NodeMeeting{128 + sig, std::nullopt};
  };
  auto st = connect_to_node0(o.master_addr, port, deadline, p.conn, signal_fd);
  if (auto m = interrupted(st); m.exit_code >= 0) return m;
  if (!st) {
    say("cannot reach node 0's launcher at " + o.master_addr + ":" + std::to_string(port) + " within " +
        std::to_string(o.dist_timeout) + " s (--dist-timeout; last: " + st.error() +
        "): is it running, is --master-addr node 0's address on a network both share, and is the port open?");
    return {1, std::nullopt};
  }
  json challenge, reply;
  std::string nonce = new_nonce();
  st = p.conn.receive(challenge, deadline, signal_fd);
  if (st && str_of(challenge, "type") != "challenge") st = Status::failure("no challenge: not a dlready launcher");
  if (st) {
    hello["nonce"] = nonce;
    st = p.conn.send(signed_for(hello, o.job_token, str_of(challenge, "nonce")), deadline);
  }
  // Node 0 waits up to --dist-timeout for the last node, then compares: wait a little longer.
  if (st) st = p.conn.receive(reply, Clock::now() + std::chrono::seconds(o.dist_timeout + 60), signal_fd);
  if (auto m = interrupted(st); m.exit_code >= 0) return m;
  if (!st) {
    say("node 0's launcher at " + o.master_addr + ":" + std::to_string(port) + " gave no verdict: " + st.error());
    return {1, std::nullopt};
  }
  return read_node0_answer(o, reply, nonce, std::move(p), t0);
}

}  // namespace

int launcher_port(const LaunchOptions& o) { return o.launcher_port > 0 ? o.launcher_port : o.master_port + 1; }

NodeMeeting meet_other_nodes(const LaunchOptions& o, int signal_fd) {
  auto t0 = Clock::now();
  json snapshot;
  if (o.preflight && o.take_snapshot) {
    if (auto st = o.take_snapshot(snapshot); !st) {
      say("preflight: cannot take this node's snapshot: " + st.error() + " (--no-preflight skips it)");
      return {1, std::nullopt};
    }
  }
  if (!o.job_token)
    say("no job token: anyone who can reach port " + std::to_string(launcher_port(o)) + " on node 0 can join or stop "
        "this job (as with torchrun's store); give every node the same --job-token-file FILE (or DLREADY_JOB_TOKEN)");
  json hello = hello_of(o, snapshot);
  if (o.node_rank == 0) return Node0Meeting(o, signal_fd).run(hello, t0);
  return meet_node0(o, hello, t0, signal_fd);
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
        stop = printable(str_of(m, "why", "node 0 stopped the job"));
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
