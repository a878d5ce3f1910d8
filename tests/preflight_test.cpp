// The multi-node preflight and the launchers' watch of each other (label "unit"): the comparison of
// node snapshots from fixture machines, and real `dlready launch` processes meeting on loopback
// (each node's stack read under its own --root). The LibTorch runs over network namespaces are in
// tests/train/multinode_test.cpp.
#include <gtest/gtest.h>
#include <signal.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include "fixture.hpp"
#include "diagnose/rules.hpp"
#include "report/render.hpp"
#include "snapshot/node_compare.hpp"

namespace dlready::test {
namespace {

nlohmann::json snapshot_of(const Fixture& f) {
  auto facts = f.facts();
  auto doc = report_json(facts, diagnose(facts));
  doc["schema"] = "dlready.snapshot/1";
  return doc;
}

std::vector<NodeStack> nodes_of(const std::vector<const Fixture*>& machines, int nproc_on_last = 1) {
  std::vector<NodeStack> out;
  for (size_t i = 0; i < machines.size(); ++i)
    out.push_back(node_stack(static_cast<int>(i), "host" + std::to_string(i), i ? "10.0.0." + std::to_string(i + 1) : "",
                             i + 1 == machines.size() ? nproc_on_last : 1, snapshot_of(*machines[i])));
  return out;
}

std::string all_of(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

TEST(Preflight, SameNodesPass) {
  Fixture a, b;
  healthy_gpu_machine(a), healthy_gpu_machine(b);
  auto nodes = nodes_of({&a, &b});
  auto c = compare_nodes(nodes);
  EXPECT_TRUE(c.ok()) << all_of(c.blocking);
  EXPECT_TRUE(c.differences.empty());
  EXPECT_NE(render_node_comparison(c, nodes).find("every node's stack is node 0's (2 node(s)"), std::string::npos);
}

TEST(Preflight, AnotherTorchBuildStopsTheJobAndNamesTheNode) {
  Fixture a, b;
  healthy_gpu_machine(a), healthy_gpu_machine(b);
  TorchSpec older;
  older.version = "2.5.1+cu124", older.cuda = "12.4";
  older.pins = older.installed = {{"nvidia-nccl-cu12", "2.21.5"}};
  add_torch_venv(b, "/home/alice/venv", older);
  auto nodes = nodes_of({&a, &b});
  auto c = compare_nodes(nodes);
  ASSERT_FALSE(c.ok());
  std::string why = all_of(c.blocking);
  EXPECT_NE(why.find("node 1 (host1, 10.0.0.2) runs PyTorch 2.5.1+cu124 (CUDA 12.4), node 0 runs 2.11.0+cu130"),
            std::string::npos) << why;
  EXPECT_EQ(why.find("NCCL 2.21.5"), std::string::npos) << "the same NCCL major is no reason of its own\n" << why;
  auto table = render_node_comparison(c, nodes);
  EXPECT_NE(table.find("stops the job"), std::string::npos) << table;
}

TEST(Preflight, ADriverTooOldForTheOtherNodesBuildIsNamed) {
  Fixture a, b;
  healthy_gpu_machine(a), healthy_gpu_machine(b);
  replace_driver(b, "550.54.15", "devices=1\ndev0.name=NVIDIA H100 80GB HBM3\ndev0.cc=9.0\ncuda.driver_version=12040\n");
  auto c = compare_nodes(nodes_of({&a, &b}));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(all_of(c.blocking).find("needs an NVIDIA driver >= 580"), std::string::npos) << all_of(c.blocking);
  EXPECT_NE(all_of(c.blocking).find("550.54.15"), std::string::npos) << all_of(c.blocking);
}

TEST(Preflight, AGpuTheBuildHasNoCodeForStopsTheJob) {
  Fixture a, b;
  healthy_gpu_machine(a), healthy_gpu_machine(b);
  TorchSpec cu124;
  cu124.version = "2.5.1+cu124", cu124.cuda = "12.4";
  add_torch_venv(a, "/home/alice/venv", cu124), add_torch_venv(b, "/home/alice/venv", cu124);
  replace_driver(b, "580.65.06", "devices=1\ndev0.name=NVIDIA GeForce RTX 5090\ndev0.cc=12.0\ncuda.driver_version=13000\n");
  auto c = compare_nodes(nodes_of({&a, &b}));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(all_of(c.blocking).find("no GPU code for compute capability 12.0"), std::string::npos) << all_of(c.blocking);
}

TEST(Preflight, AnotherNprocPerNodeStopsTheJob) {
  Fixture a, b;
  healthy_gpu_machine(a), healthy_gpu_machine(b);
  auto c = compare_nodes(nodes_of({&a, &b}, 2));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(all_of(c.blocking).find("node 1 (host1, 10.0.0.2) starts 2 rank(s), node 0 1"), std::string::npos)
      << all_of(c.blocking);
}

TEST(Preflight, AnInterfaceVariableNamingNoInterfaceStopsTheJob) {
  Fixture a, b;
  healthy_gpu_machine(a), healthy_gpu_machine(b);
  for (Fixture* f : {&a, &b}) f->mkdir("/sys/class/net/eth0");
  b.env["NCCL_SOCKET_IFNAME"] = "ib9";
  auto nodes = nodes_of({&a, &b});
  auto c = compare_nodes(nodes);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(all_of(c.blocking).find("node 1 (host1, 10.0.0.2): "), std::string::npos) << all_of(c.blocking);
  EXPECT_NE(all_of(c.blocking).find("NCCL_SOCKET_IFNAME=ib9"), std::string::npos) << all_of(c.blocking);
}

TEST(Preflight, OtherDifferencesAreWarningsOnly) {
  Fixture a, b, c3;
  healthy_gpu_machine(a), healthy_gpu_machine(b), healthy_gpu_machine(c3);
  c3.env["CUDA_VISIBLE_DEVICES"] = "0";
  auto nodes = nodes_of({&a, &b, &c3});
  auto c = compare_nodes(nodes);
  EXPECT_TRUE(c.ok()) << all_of(c.blocking);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("environment differs on node 2"), std::string::npos) << c.warnings[0];
  auto table = render_node_comparison(c, nodes);
  EXPECT_NE(table.find("CUDA_VISIBLE_DEVICES"), std::string::npos) << table;
  EXPECT_NE(table.find("warning"), std::string::npos) << table;
}

// --- real launchers on loopback -------------------------------------------------------------

struct Launched {
  pid_t pid = -1;
  std::string log;
};

// Starts `dlready launch` in the background, its output (both streams) into `log`.
Launched start_launcher(const std::string& args, const std::string& log) {
  return {start_in_background("env VIRTUAL_ENV=/home/alice/venv HOME=/home/alice " + std::string(DLREADY_BINARY) +
                                  " launch " + args,
                              log),
          log};
}

int wait_exit(const Launched& l, int seconds = 60) { return test::wait_exit(l.pid, seconds); }

std::string node_args(const Fixture& root, int node, int nnodes, int port, int timeout = 20) {
  return "--root " + root.root + " --no-driver-probe --nnodes " + std::to_string(nnodes) + " --node-rank " +
         std::to_string(node) + " --master-addr 127.0.0.1 --master-port " + std::to_string(port) +
         " --dist-timeout " + std::to_string(timeout);
}

// Alive and not a zombie (an orphan's zombie waits for whatever reaps orphans here).
bool running(pid_t pid) {
  if (::kill(pid, 0) != 0) return false;
  std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
  auto paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z';
}

const std::string kRankCommand = " -- sh -c 'echo rank=$RANK of $WORLD_SIZE node=$GROUP_RANK'";

TEST(NodeLaunch, SameNodesMeetAndEveryRankRuns) {
  Fixture a, b, logs;
  healthy_gpu_machine(a), healthy_gpu_machine(b);
  auto n1 = start_launcher(node_args(b, 1, 2, 29611) + kRankCommand, logs.root + "/n1.log");
  auto n0 = start_launcher(node_args(a, 0, 2, 29611) + kRankCommand, logs.root + "/n0.log");
  EXPECT_EQ(wait_exit(n0), 0) << read_text(n0.log);
  EXPECT_EQ(wait_exit(n1), 0) << read_text(n1.log);
  auto out0 = read_text(n0.log), out1 = read_text(n1.log);
  EXPECT_NE(out0.find("every node's stack is node 0's (2 node(s)"), std::string::npos) << out0;
  EXPECT_NE(out0.find("preflight of 2 nodes took"), std::string::npos) << out0;
  EXPECT_NE(out0.find("[rank 0] rank=0 of 2 node=0"), std::string::npos) << out0;
  EXPECT_NE(out1.find("[rank 1] rank=1 of 2 node=1"), std::string::npos) << out1;
  EXPECT_NE(out1.find("node 0 started the job"), std::string::npos) << out1;
}

// Connects to 127.0.0.1:port (retrying while nothing listens), sends `bytes`, closes.
bool send_stranger(int port, const std::string& bytes) {
  for (int i = 0; i < 200; ++i) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET, a.sin_port = htons(static_cast<uint16_t>(port)), a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
      bool ok = ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
      ::close(fd);
      return ok;
    }
    ::close(fd);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// A port scanner, an HTTP client or a JSON message that is no launcher's on node 0's launcher port
// is named and ignored; the nodes still meet and the job runs.
TEST(NodeLaunch, StrangersOnTheLauncherPortAreIgnored) {
  Fixture a, b, logs;
  healthy_gpu_machine(a), healthy_gpu_machine(b);
  auto n0 = start_launcher(node_args(a, 0, 2, 29625) + kRankCommand, logs.root + "/n0.log");
  ASSERT_TRUE(send_stranger(29626, "GET / HTTP/1.0\r\n\r\n"));
  std::string body = R"({"type":"hello","node":"one"})";
  uint32_t n = htonl(static_cast<uint32_t>(body.size()));
  ASSERT_TRUE(send_stranger(29626, std::string(reinterpret_cast<const char*>(&n), 4) + body));
  ASSERT_TRUE(send_stranger(29626, ""));
  auto n1 = start_launcher(node_args(b, 1, 2, 29625) + kRankCommand, logs.root + "/n1.log");
  EXPECT_EQ(wait_exit(n0), 0) << read_text(n0.log);
  EXPECT_EQ(wait_exit(n1), 0) << read_text(n1.log);
  auto out0 = read_text(n0.log);
  EXPECT_NE(out0.find("ignored a connection from 127.0.0.1: the other end (127.0.0.1) is not a dlready launcher"),
            std::string::npos) << out0;
  EXPECT_NE(out0.find("ignored a connection from 127.0.0.1: not a dlready launcher"), std::string::npos) << out0;
  EXPECT_NE(out0.find("[rank 0] rank=0 of 2"), std::string::npos) << out0;
}

TEST(NodeLaunch, ADifferentNodeStopsEveryNodeBeforeAnyRank) {
  Fixture a, b, logs;
  healthy_gpu_machine(a), healthy_gpu_machine(b);
  TorchSpec older;
  older.version = "2.5.1+cu124", older.cuda = "12.4";
  add_torch_venv(b, "/home/alice/venv", older);
  auto n0 = start_launcher(node_args(a, 0, 2, 29613) + kRankCommand, logs.root + "/n0.log");
  auto n1 = start_launcher(node_args(b, 1, 2, 29613) + kRankCommand, logs.root + "/n1.log");
  EXPECT_EQ(wait_exit(n0), 1) << read_text(n0.log);
  EXPECT_EQ(wait_exit(n1), 1) << read_text(n1.log);
  for (const auto& log : {n0.log, n1.log}) {
    auto out = read_text(log);
    EXPECT_NE(out.find("runs PyTorch 2.5.1+cu124 (CUDA 12.4), node 0 runs 2.11.0+cu130"), std::string::npos) << out;
    EXPECT_EQ(out.find("rank="), std::string::npos) << "no rank may start\n" << out;
  }
  EXPECT_NE(read_text(n0.log).find("the job does not start on any node"), std::string::npos) << read_text(n0.log);
  // --no-preflight: the nodes still meet, nothing is compared, the ranks run.
  auto m0 = start_launcher("--no-preflight " + node_args(a, 0, 2, 29615) + kRankCommand, logs.root + "/m0.log");
  auto m1 = start_launcher("--no-preflight " + node_args(b, 1, 2, 29615) + kRankCommand, logs.root + "/m1.log");
  EXPECT_EQ(wait_exit(m0), 0) << read_text(m0.log);
  EXPECT_EQ(wait_exit(m1), 0) << read_text(m1.log);
  EXPECT_NE(read_text(m0.log).find("meeting of 2 nodes took"), std::string::npos) << read_text(m0.log);
  // Only node 1 without it: node 0 names it instead of reading its absent stack as every item missing.
  auto k0 = start_launcher(node_args(a, 0, 2, 29627) + kRankCommand, logs.root + "/k0.log");
  auto k1 = start_launcher("--no-preflight " + node_args(a, 1, 2, 29627) + kRankCommand, logs.root + "/k1.log");
  EXPECT_EQ(wait_exit(k0), 0) << read_text(k0.log);
  EXPECT_EQ(wait_exit(k1), 0) << read_text(k1.log);
  auto out = read_text(k0.log);
  EXPECT_NE(out.find("not compared: node 1 ("), std::string::npos) << out;
  EXPECT_EQ(out.find("(none)"), std::string::npos) << out;
}

TEST(NodeLaunch, ANodeThatNeverComesIsNamedAfterTheTimeout) {
  Fixture a, b, logs;
  healthy_gpu_machine(a), healthy_gpu_machine(b);
  auto n0 = start_launcher(node_args(a, 0, 3, 29617, 2) + kRankCommand, logs.root + "/n0.log");
  auto n1 = start_launcher(node_args(b, 1, 3, 29617, 2) + kRankCommand, logs.root + "/n1.log");
  EXPECT_EQ(wait_exit(n0), 1) << read_text(n0.log);
  EXPECT_EQ(wait_exit(n1), 1) << read_text(n1.log);
  EXPECT_NE(read_text(n0.log).find("node 2 did not come within 2 s (--dist-timeout)"), std::string::npos)
      << read_text(n0.log);
  EXPECT_NE(read_text(n1.log).find("node 0 stopped the job: node 2 did not come"), std::string::npos)
      << read_text(n1.log);
  // Alone, a node that cannot reach node 0 says where it looked.
  auto lone = start_launcher(node_args(b, 1, 2, 29619, 2) + kRankCommand, logs.root + "/lone.log");
  EXPECT_EQ(wait_exit(lone), 1);
  EXPECT_NE(read_text(lone.log).find("cannot reach node 0's launcher at 127.0.0.1:29620 within 2 s"),
            std::string::npos) << read_text(lone.log);
}

TEST(NodeLaunch, WrongNodeRanksAndCountsAreRefused) {
  Fixture a, logs;
  healthy_gpu_machine(a);
  // Without a job token a launcher that says something else is refused, not obeyed: node 0 keeps
  // waiting for its real node 1 (here until its --dist-timeout) and names the refusal then.
  auto n0 = start_launcher(node_args(a, 0, 2, 29621, 4) + kRankCommand, logs.root + "/n0.log");
  auto n1 = start_launcher("--root " + a.root + " --no-driver-probe --nnodes 3 --node-rank 1 --master-addr 127.0.0.1 "
                           "--master-port 29621 --dist-timeout 20" + kRankCommand, logs.root + "/n1.log");
  EXPECT_EQ(wait_exit(n0), 1) << read_text(n0.log);
  EXPECT_EQ(wait_exit(n1), 1) << read_text(n1.log);
  EXPECT_NE(read_text(n1.log).find("node 0 refused this launcher: node 1 (127.0.0.1) was started with --nnodes 3, "
                                   "node 0 with --nnodes 2"),
            std::string::npos)
      << read_text(n1.log);
  EXPECT_NE(read_text(n0.log).find("node 1 did not come within 4 s (--dist-timeout)"), std::string::npos)
      << read_text(n0.log);
  EXPECT_NE(read_text(n0.log).find("(refused: 127.0.0.1: node 1 (127.0.0.1) was started with --nnodes 3"),
            std::string::npos)
      << read_text(n0.log);
  // Port clashes between the two listeners are refused before anything starts.
  auto clash = command_output(std::string(DLREADY_BINARY) + " launch --nnodes 2 --master-port 29500 "
                              "--launcher-port 29500 -- true 2>&1; echo rc=$?");
  EXPECT_NE(clash.find("--launcher-port must differ from --master-port"), std::string::npos) << clash;
  EXPECT_NE(clash.find("rc=2"), std::string::npos) << clash;
}

TEST(NodeLaunch, AKilledLauncherStopsTheOtherNodesWithItNamed) {
  Fixture a, b, logs;
  healthy_gpu_machine(a), healthy_gpu_machine(b);
  std::string pid_file = logs.root + "/rank1.pid";
  auto n0 = start_launcher(node_args(a, 0, 2, 29623) + " -- sleep 60", logs.root + "/n0.log");
  auto n1 = start_launcher(node_args(b, 1, 2, 29623) + " -- sh -c 'echo $$ > " + pid_file + "; exec sleep 60'",
                           logs.root + "/n1.log");
  for (int i = 0; i < 500 && read_text(pid_file).empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  pid_t rank1 = std::atoi(read_text(pid_file).c_str());
  ASSERT_GT(rank1, 0) << read_text(n1.log);
  auto t0 = std::chrono::steady_clock::now();
  ::kill(n1.pid, SIGKILL);
  EXPECT_EQ(wait_exit(n1), 128 + SIGKILL);
  EXPECT_EQ(wait_exit(n0, 30), 1) << read_text(n0.log);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(seconds, 15) << "node 0 stops at once, not after --dist-timeout";
  EXPECT_NE(read_text(n0.log).find("node 1 ("), std::string::npos) << read_text(n0.log);
  EXPECT_NE(read_text(n0.log).find("left the job"), std::string::npos) << read_text(n0.log);
  // The killed launcher's rank went with it (parent-death signal), not left running.
  bool gone = false;
  for (int i = 0; i < 250 && !gone; ++i) {
    gone = !running(rank1);
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(gone) << "rank 1 (pid " << rank1 << ") outlived its launcher";
}

// --- the launchers' port against strangers (issue: hostile input, round 2) ----------------------

// A connection to node 0's launcher port that stays open until closed (fd < 0: none came).
int connect_when_listening(int port) {
  for (int i = 0; i < 250; ++i) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET, a.sin_port = htons(static_cast<uint16_t>(port)), a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) return fd;
    ::close(fd);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return -1;
}

std::string framed(const std::string& body) {
  uint32_t n = htonl(static_cast<uint32_t>(body.size()));
  return std::string(reinterpret_cast<const char*>(&n), 4) + body;
}

bool send_all(int fd, const std::string& bytes) {
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t w = ::send(fd, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    if (w <= 0) return false;
    off += static_cast<size_t>(w);
  }
  return true;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Hellos that claim an impossible node, another job's size, or a deep document are refused and
// ignored: they never stop the job, and node 0 does not crash on 200,000 nested arrays.
TEST(NodePort, ImpossibleOrHostileHellosAreIgnoredAndTheJobRuns) {
  Fixture a, b, logs;
  healthy_gpu_machine(a), healthy_gpu_machine(b);
  auto n0 = start_launcher(node_args(a, 0, 2, 29641) + kRankCommand, logs.root + "/n0.log");
  std::string deep = R"({"type":"hello","node":1,"nnodes":2,"host":"x","snapshot":{"findings":)" +
                     std::string(200000, '[') + std::string(200000, ']') + "}}";
  for (const std::string& body :
       {std::string(R"({"type":"hello","node":5,"nnodes":2})"), std::string(R"({"type":"hello","node":-1,"nnodes":2})"),
        std::string(R"({"type":"hello","node":1,"nnodes":7})"), deep}) {
    int fd = connect_when_listening(29642);
    ASSERT_GE(fd, 0);
    EXPECT_TRUE(send_all(fd, framed(body)));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ::close(fd);
  }
  auto n1 = start_launcher(node_args(b, 1, 2, 29641) + kRankCommand, logs.root + "/n1.log");
  EXPECT_EQ(wait_exit(n0), 0) << read_text(n0.log);
  EXPECT_EQ(wait_exit(n1), 0) << read_text(n1.log);
  auto out = read_text(n0.log);
  EXPECT_NE(out.find("ignored a connection from 127.0.0.1: the launcher at 127.0.0.1 says it is node 5, outside 1..1"),
            std::string::npos) << out;
  EXPECT_NE(out.find("was started with --nnodes 7"), std::string::npos) << out;
  EXPECT_NE(out.find("nested deeper than 64 levels"), std::string::npos) << out;
  EXPECT_EQ(out.find("stopping every node"), std::string::npos) << out;
  EXPECT_NE(out.find("[rank 0] rank=0 of 2"), std::string::npos) << out;
}

// Connections that say nothing hold up nobody; a message larger than any hello is refused unread.
TEST(NodePort, IdleAndOversizedConnectionsDoNotHoldTheMeeting) {
  Fixture a, b, logs;
  healthy_gpu_machine(a), healthy_gpu_machine(b);
  auto n0 = start_launcher(node_args(a, 0, 2, 29643) + kRankCommand, logs.root + "/n0.log");
  std::vector<int> idle;
  for (int i = 0; i < 3; ++i) idle.push_back(connect_when_listening(29644));
  int big = connect_when_listening(29644);
  uint32_t n = htonl(64u << 20);
  EXPECT_TRUE(send_all(big, std::string(reinterpret_cast<const char*>(&n), 4)));
  auto t0 = std::chrono::steady_clock::now();
  auto n1 = start_launcher(node_args(b, 1, 2, 29643) + kRankCommand, logs.root + "/n1.log");
  EXPECT_EQ(wait_exit(n1), 0) << read_text(n1.log);
  EXPECT_LT(seconds_since(t0), 10) << "idle connections held the meeting";
  EXPECT_EQ(wait_exit(n0), 0) << read_text(n0.log);
  for (int fd : idle) ::close(fd);
  ::close(big);
  auto out = read_text(n0.log);
  EXPECT_NE(out.find("announced a message of 67108864 bytes"), std::string::npos) << out;
  EXPECT_NE(out.find("no job token: anyone who can reach port 29644"), std::string::npos) << out;
}

// 40 connections that each send one byte would hold every slot until --dist-timeout (issue 45,
// defect 4): a launcher of the job still gets in at once (the oldest silent one makes room).
TEST(NodePort, SlotsHeldByteByByteDoNotTurnTheJobsNodesAway) {
  Fixture a, b, logs;
  healthy_gpu_machine(a), healthy_gpu_machine(b);
  auto n0 = start_launcher(node_args(a, 0, 2, 29661, 120) + kRankCommand, logs.root + "/n0.log");
  std::vector<int> slow;
  for (int i = 0; i < 40; ++i) {
    int fd = connect_when_listening(29662);
    ASSERT_GE(fd, 0);
    EXPECT_TRUE(send_all(fd, std::string(1, '\0')));
    slow.push_back(fd);
  }
  auto t0 = std::chrono::steady_clock::now();
  auto n1 = start_launcher(node_args(b, 1, 2, 29661, 120) + kRankCommand, logs.root + "/n1.log");
  EXPECT_EQ(wait_exit(n1, 60), 0) << read_text(n1.log);
  EXPECT_LT(seconds_since(t0), 20) << "the silent connections kept node 1 out";
  EXPECT_EQ(wait_exit(n0), 0) << read_text(n0.log);
  for (int fd : slow) ::close(fd);
  EXPECT_NE(read_text(n0.log).find("[rank 0] rank=0 of 2"), std::string::npos) << read_text(n0.log);
}

// With a job token, a hello without it (or with another token) is refused, and the job runs.
TEST(NodePort, WithAJobTokenOnlyItsLaunchersJoin) {
  Fixture a, b, logs;
  healthy_gpu_machine(a), healthy_gpu_machine(b);
  std::string token = logs.root + "/token", other = logs.root + "/other";
  std::ofstream(token) << "correct-horse-battery-staple-42\n";
  std::ofstream(other) << "another-secret-of-another-job\n";
  ::chmod(token.c_str(), 0600), ::chmod(other.c_str(), 0600);
  auto n0 = start_launcher("--job-token-file " + token + " " + node_args(a, 0, 2, 29645) + kRankCommand, logs.root + "/n0.log");
  int fd = connect_when_listening(29646);
  ASSERT_GE(fd, 0);
  EXPECT_TRUE(send_all(fd, framed(R"({"type":"hello","node":1,"nnodes":2,"host":"intruder","snapshot":null})")));
  auto wrong = start_launcher("--job-token-file " + other + " " + node_args(b, 1, 2, 29645) + kRankCommand,
                              logs.root + "/wrong.log");
  EXPECT_EQ(wait_exit(wrong), 1) << read_text(wrong.log);
  EXPECT_NE(read_text(wrong.log).find("answered without this job's token"), std::string::npos) << read_text(wrong.log);
  auto n1 = start_launcher("--job-token-file " + token + " " + node_args(b, 1, 2, 29645) + kRankCommand, logs.root + "/n1.log");
  EXPECT_EQ(wait_exit(n0), 0) << read_text(n0.log);
  EXPECT_EQ(wait_exit(n1), 0) << read_text(n1.log);
  ::close(fd);
  auto out = read_text(n0.log);
  EXPECT_NE(out.find("does not carry this job's token"), std::string::npos) << out;
  EXPECT_EQ(out.find("intruder"), std::string::npos) << out;
  EXPECT_EQ(out.find("no job token"), std::string::npos) << out;
  // A token file others can read is refused before anything starts.
  ::chmod(token.c_str(), 0644);
  auto loose = command_output(std::string(DLREADY_BINARY) + " launch --nnodes 2 --job-token-file " + token +
                              " -- true 2>&1; echo rc=$?");
  EXPECT_NE(loose.find("is readable by other users: chmod 600"), std::string::npos) << loose;
  EXPECT_NE(loose.find("rc=2"), std::string::npos) << loose;
}

// Ctrl-C or SIGTERM while node 0 waits ends the wait at once, with the usual exit status.
TEST(NodePort, ASignalEndsTheWaitAtOnce) {
  Fixture a, logs;
  healthy_gpu_machine(a);
  auto n0 = start_launcher(node_args(a, 0, 2, 29647, 120) + kRankCommand, logs.root + "/n0.log");
  int fd = connect_when_listening(29648);  // it listens: the wait has begun
  ASSERT_GE(fd, 0);
  ::close(fd);
  auto t0 = std::chrono::steady_clock::now();
  ::kill(n0.pid, SIGTERM);
  EXPECT_EQ(wait_exit(n0, 30), 128 + SIGTERM) << read_text(n0.log);
  EXPECT_LT(seconds_since(t0), 5);
  EXPECT_NE(read_text(n0.log).find("while waiting for the other nodes"), std::string::npos) << read_text(n0.log);
}

// What a peer sends reaches node 0's terminal with its control characters escaped: no cursor
// movement, no forged line.
TEST(NodePort, APeersTextIsEscapedBeforeItIsPrinted) {
  Fixture a, logs;
  healthy_gpu_machine(a);
  auto n0 = start_launcher(node_args(a, 0, 2, 29649) + kRankCommand, logs.root + "/n0.log");
  int fd = connect_when_listening(29650);
  ASSERT_GE(fd, 0);
  std::string host = "evil\x1b[2J\rdlready launch: preflight OK";
  EXPECT_TRUE(send_all(fd, framed(nlohmann::json{{"type", "hello"}, {"node", 1}, {"nnodes", 2}, {"host", host},
                                                 {"snapshot", nullptr}}.dump())));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ::close(fd);
  wait_exit(n0);
  auto out = read_text(n0.log);
  EXPECT_EQ(out.find('\x1b'), std::string::npos) << out;
  EXPECT_EQ(out.find('\r'), std::string::npos) << out;
  EXPECT_NE(out.find("evil\\x1b[2J\\x0ddlready launch: preflight OK"), std::string::npos) << out;
}

}  // namespace
}  // namespace dlready::test
