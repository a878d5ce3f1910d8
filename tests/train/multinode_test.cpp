// Multi-node data parallel across real network stacks (label "torch"): each node is a network
// namespace joined to the others by a veth pair into a bridge (iproute2; created and removed by the
// test), running its own `dlready launch --nnodes N --node-rank R --master-addr <node 0's veth
// address>`; the ranks talk c10d Gloo over those links. Skips, with the reason, where namespaces
// cannot be made (not root, no CAP_NET_ADMIN).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "checkpoint_params.hpp"
#include "fixture.hpp"

namespace dlready::test {
namespace {

const std::string kData = "/usr/share/datasets/fashion-mnist";
std::string bin() { return DLREADY_BINARY; }

int sh(const std::string& cmd) { return WEXITSTATUS(std::system((cmd + " >/dev/null 2>&1").c_str())); }

// N namespaces, node k at 10.213.<subnet>.<k+1>/24 on its eth0, all on one bridge in a namespace of
// its own. Names carry this process's id, so concurrent runs (CI beside a developer) do not meet.
class Hosts {
 public:
  Hosts(int n, int subnet) : tag_(std::to_string(::getpid() % 100000)), subnet_(subnet) {
    ok_ = sh("ip netns add " + sw()) == 0;
    if (!ok_) return;
    run_or_fail("ip -n " + sw() + " link add br0 type bridge && ip -n " + sw() + " link set br0 up");
    for (int k = 0; k < n && ok_; ++k) {
      std::string a = "dla" + tag_ + "n" + std::to_string(k), b = "dlb" + tag_ + "n" + std::to_string(k);
      names_.push_back("dlready" + tag_ + "n" + std::to_string(k));
      run_or_fail("ip netns add " + names_.back());
      run_or_fail("ip link add " + a + " type veth peer name " + b);
      run_or_fail("ip link set " + a + " netns " + sw() + " && ip link set " + b + " netns " + names_.back());
      run_or_fail("ip -n " + sw() + " link set " + a + " master br0 && ip -n " + sw() + " link set " + a + " up");
      run_or_fail("ip -n " + names_.back() + " link set " + b + " name eth0 && ip -n " + names_.back() + " addr add " +
                  address(k) + "/24 dev eth0 && ip -n " + names_.back() + " link set eth0 up && ip -n " +
                  names_.back() + " link set lo up");
    }
  }
  ~Hosts() {
    for (const auto& n : names_) sh("ip netns del " + n);  // deleting a namespace deletes its veth end
    sh("ip netns del " + sw());
  }
  bool ok() const { return ok_; }
  std::string address(int k) const { return "10.213." + std::to_string(subnet_) + "." + std::to_string(k + 1); }
  // The command as node k runs it.
  std::string on(int k, const std::string& cmd) const { return "ip netns exec " + names_[k] + " " + cmd; }

 private:
  std::string sw() const { return "dlready" + tag_ + "sw"; }
  void run_or_fail(const std::string& cmd) {
    if (ok_ && sh(cmd) != 0) ok_ = false, ADD_FAILURE() << "failed: " << cmd;
  }
  std::string tag_;
  int subnet_;
  bool ok_ = false;
  std::vector<std::string> names_;
};

void expect_same_model(const std::string& a, const std::string& b) {
  auto pa = model_params(a), pb = model_params(b);
  ASSERT_EQ(pa.size(), 4u);
  ASSERT_EQ(pa.size(), pb.size());
  for (size_t i = 0; i < pa.size(); ++i) {
    double diff = (pa[i].second - pb[i].second).abs().max().item<double>();
    EXPECT_LT(diff, 2e-5) << pa[i].first << " differs by " << diff;
  }
}

// 1920 samples: whole global batches of 64 (2 nodes x 32) and 96 (3 nodes x 32).
const std::string kTrain = " train --data " + kData + " --limit-train 1920 --epochs 2 --threads 1 --no-progress";

std::string launch_args(const Hosts& h, int node, int nnodes) {
  return " launch --nnodes " + std::to_string(nnodes) + " --node-rank " + std::to_string(node) + " --master-addr " +
         h.address(0) + " --master-port 29731 --dist-timeout 120 --";
}

class Nodes : public ::testing::TestWithParam<int> {};

TEST_P(Nodes, TrainToTheOneNodeModelOverVeth) {
  if (!std::filesystem::exists(kData)) GTEST_SKIP() << "dataset-fashion-mnist not installed";
  int n = GetParam();
  Hosts hosts(n, 10 + n);
  if (!hosts.ok()) GTEST_SKIP() << "cannot create network namespaces here (needs root / CAP_NET_ADMIN)";
  Fixture f;
  int rc1 = std::system((bin() + kTrain + " --batch-size " + std::to_string(32 * n) + " --out " + f.root + "/one > " +
                         f.root + "/one.log 2>&1").c_str());
  ASSERT_EQ(WEXITSTATUS(rc1), 0) << read_text(f.root + "/one.log");
  std::vector<pid_t> pids;
  for (int k = n - 1; k >= 0; --k)  // the last node first: it waits for node 0
    pids.push_back(start_in_background(hosts.on(k, bin() + launch_args(hosts, k, n) + " " + bin() + kTrain + " --batch-size 32 --out " +
                                          f.root + "/node" + std::to_string(k)),
                         f.root + "/node" + std::to_string(k) + ".log"));
  for (int i = 0; i < n; ++i) {
    int k = n - 1 - i;
    EXPECT_EQ(wait_exit(pids[static_cast<size_t>(i)], 300), 0) << read_text(f.root + "/node" + std::to_string(k) + ".log");
  }
  auto log0 = read_text(f.root + "/node0.log");
  EXPECT_NE(log0.find("every node's stack is node 0's (" + std::to_string(n) + " node(s)"), std::string::npos) << log0;
  EXPECT_NE(log0.find("preflight of " + std::to_string(n) + " nodes took"), std::string::npos) << log0;
  EXPECT_NE(log0.find("data parallel: " + std::to_string(n) + " ranks"), std::string::npos) << log0;
  expect_same_model(f.root + "/one", f.root + "/node0");
}

INSTANTIATE_TEST_SUITE_P(Veth, Nodes, ::testing::Values(2, 3));

TEST(MultiNode, ANodeWithAnInterfaceVariableItCannotUseIsStoppedBeforeTraining) {
  if (!std::filesystem::exists(kData)) GTEST_SKIP() << "dataset-fashion-mnist not installed";
  Hosts hosts(2, 20);
  if (!hosts.ok()) GTEST_SKIP() << "cannot create network namespaces here (needs root / CAP_NET_ADMIN)";
  Fixture f;
  pid_t n1 = start_in_background(hosts.on(1, "env GLOO_SOCKET_IFNAME=ib0 " + bin() + launch_args(hosts, 1, 2) + " " + bin() + kTrain +
                                   " --out " + f.root + "/n1"),
                   f.root + "/n1.log");
  pid_t n0 = start_in_background(hosts.on(0, bin() + launch_args(hosts, 0, 2) + " " + bin() + kTrain + " --out " + f.root + "/n0"),
                   f.root + "/n0.log");
  EXPECT_EQ(wait_exit(n0, 120), 1) << read_text(f.root + "/n0.log");
  EXPECT_EQ(wait_exit(n1, 120), 1) << read_text(f.root + "/n1.log");
  for (const char* log : {"/n0.log", "/n1.log"}) {
    auto out = read_text(f.root + log);
    EXPECT_NE(out.find("GLOO_SOCKET_IFNAME=ib0"), std::string::npos) << out;
    EXPECT_NE(out.find("stops the job: node 1 ("), std::string::npos) << out;
    EXPECT_EQ(out.find("[rank "), std::string::npos) << "no rank may start\n" << out;
  }
}

TEST(MultiNode, KillingOneNodesLauncherStopsTheOthersWithThatNodeNamed) {
  if (!std::filesystem::exists(kData)) GTEST_SKIP() << "dataset-fashion-mnist not installed";
  Hosts hosts(2, 21);
  if (!hosts.ok()) GTEST_SKIP() << "cannot create network namespaces here (needs root / CAP_NET_ADMIN)";
  Fixture f;
  // Long enough to be killed in the middle: 20 epochs of the small set.
  std::string train = " train --data " + kData + " --limit-train 1920 --epochs 20 --threads 1 --no-progress";
  pid_t n1 = start_in_background(hosts.on(1, bin() + launch_args(hosts, 1, 2) + " " + bin() + train + " --out " + f.root + "/n1"),
                   f.root + "/n1.log");
  pid_t n0 = start_in_background(hosts.on(0, bin() + launch_args(hosts, 0, 2) + " " + bin() + train + " --out " + f.root + "/n0"),
                   f.root + "/n0.log");
  for (int i = 0; i < 1200 && read_text(f.root + "/n0.log").find("epoch 1") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_NE(read_text(f.root + "/n0.log").find("epoch 1"), std::string::npos) << read_text(f.root + "/n0.log");
  auto t0 = std::chrono::steady_clock::now();
  // `ip netns exec` execs the launcher: the pid is the launcher's.
  ::kill(n1, SIGKILL);
  EXPECT_EQ(wait_exit(n1, 30), 128 + SIGKILL);
  EXPECT_EQ(wait_exit(n0, 60), 1) << read_text(f.root + "/n0.log");
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto out = read_text(f.root + "/n0.log");
  EXPECT_NE(out.find("node 1 ("), std::string::npos) << out;
  EXPECT_NE(out.find(hosts.address(1)), std::string::npos) << out;
  EXPECT_NE(out.find("left the job"), std::string::npos) << out;
  EXPECT_LT(seconds, 30) << "stopped by the launchers' link, not by --dist-timeout";
}

}  // namespace
}  // namespace dlready::test
