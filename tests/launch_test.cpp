// dlready launch and the data-parallel configuration (no LibTorch needed).
#include <gtest/gtest.h>

#include <chrono>

#include "launch/dist_env.hpp"
#include "fixture.hpp"
#include "launch/launcher.hpp"

namespace dlready::test {
namespace {

TEST(DistConfig, OneProcessByDefault) {
  auto r = dist_config({}, {});
  ASSERT_TRUE(r.config) << r.error;
  EXPECT_FALSE(r.config->distributed());
  EXPECT_EQ(r.config->source, "single process");
}

TEST(DistConfig, TorchrunVariables) {
  auto r = dist_config({{"RANK", "3"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "1"}, {"MASTER_ADDR", "10.0.0.7"},
                        {"MASTER_PORT", "29400"}},
                       {});
  ASSERT_TRUE(r.config) << r.error;
  EXPECT_EQ(r.config->rank, 3);
  EXPECT_EQ(r.config->world, 4);
  EXPECT_EQ(r.config->local_rank, 1);
  EXPECT_EQ(r.config->master_addr, "10.0.0.7");
  EXPECT_EQ(r.config->master_port, 29400);
  EXPECT_EQ(r.config->source, "torchrun environment");
}

TEST(DistConfig, SlurmVariables) {
  auto r = dist_config({{"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "8"}, {"SLURM_LOCALID", "1"},
                        {"SLURM_LAUNCH_NODE_IPADDR", "10.1.2.3"}},
                       {});
  ASSERT_TRUE(r.config) << r.error;
  EXPECT_EQ(r.config->rank, 5);
  EXPECT_EQ(r.config->world, 8);
  EXPECT_EQ(r.config->local_rank, 1);
  EXPECT_EQ(r.config->master_addr, "10.1.2.3");
  EXPECT_EQ(r.config->source, "SLURM");
}

TEST(DistConfig, FlagsWin) {
  DistFlags f;
  f.rank = 1, f.world_size = 2, f.master_port = 29999, f.master_addr = "node0";
  auto r = dist_config({{"RANK", "0"}, {"WORLD_SIZE", "4"}}, f);
  ASSERT_TRUE(r.config) << r.error;
  EXPECT_EQ(r.config->rank, 1);
  EXPECT_EQ(r.config->world, 2);
  EXPECT_EQ(r.config->master_port, 29999);
  EXPECT_EQ(r.config->master_addr, "node0");
  EXPECT_EQ(r.config->source, "flags");
}

TEST(DistConfig, BadValuesNameTheVariable) {
  auto r = dist_config({{"RANK", "one"}, {"WORLD_SIZE", "2"}}, {});
  EXPECT_FALSE(r.config);
  EXPECT_NE(r.error.find("RANK='one'"), std::string::npos) << r.error;
  r = dist_config({{"RANK", "2"}, {"WORLD_SIZE", "2"}}, {});
  EXPECT_NE(r.error.find("outside a world of 2"), std::string::npos) << r.error;
  r = dist_config({{"MASTER_PORT", "70000"}}, {});
  EXPECT_NE(r.error.find("not a TCP port"), std::string::npos) << r.error;
  r = dist_config({{"WORLD_SIZE", "0"}}, {});
  EXPECT_NE(r.error.find("at least 1"), std::string::npos) << r.error;
}

TEST(Launch, OptionsAreChecked) {
  LaunchOptions o;
  EXPECT_NE(check_launch_options(o).error().find("no command"), std::string::npos);
  o.command = {"true"};
  EXPECT_TRUE(check_launch_options(o).ok());
  o.node_rank = 2, o.nnodes = 2;
  EXPECT_NE(check_launch_options(o).error().find("--node-rank 2"), std::string::npos);
}

std::string bin() { return DLREADY_BINARY; }

TEST(LaunchCli, PassesTheTorchrunEnvironmentAndPrefixesOutput) {
  // Node 1 of two; node 0's launcher (in the background) has to be there for the nodes to meet.
  auto out = command_output("(" + bin() + " launch --no-preflight --nproc-per-node 2 --nnodes 2 --node-rank 0 "
                            "--master-port 29123 -- true >/dev/null 2>&1 &) ; " + bin() +
                            " launch --no-preflight --nproc-per-node 2 --nnodes 2 --node-rank 1 --master-addr 127.0.0.1 "
                            "--master-port 29123 -- sh -c 'echo $RANK $WORLD_SIZE $LOCAL_RANK $LOCAL_WORLD_SIZE "
                            "$MASTER_ADDR $MASTER_PORT $GROUP_RANK $OMP_NUM_THREADS' 2>&1");
  EXPECT_NE(out.find("[rank 2] 2 4 0 2 127.0.0.1 29123 1 1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("[rank 3] 3 4 1 2 127.0.0.1 29123 1 1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("all 2 local rank(s) finished"), std::string::npos) << out;
}

TEST(LaunchCli, AFailingRankStopsTheOthersAndIsNamed) {
  auto t0 = std::chrono::steady_clock::now();
  auto out = command_output(bin() + " launch --nproc-per-node 3 -- sh -c '[ $RANK = 1 ] && exit 3; sleep 60' 2>&1; "
                                    "echo rc=$?");
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 20) << "the sleeping ranks were stopped";
  EXPECT_NE(out.find("rank 1 (pid"), std::string::npos) << out;
  EXPECT_NE(out.find("exited with status 3"), std::string::npos) << out;
  EXPECT_NE(out.find("stopping the other 2 rank(s)"), std::string::npos) << out;
  EXPECT_NE(out.find("rc=3"), std::string::npos) << out;
}

// The README's `dlready launch ... -- dlready train`: `dlready` need not be on PATH (issue 15, item 6).
TEST(LaunchCli, TheCommandDlreadyRunsTheLaunchersOwnExecutable) {
  auto out = command_output("env PATH=/usr/bin:/bin " + bin() + " launch --nproc-per-node 1 -- dlready --version 2>&1; echo rc=$?");
  EXPECT_NE(out.find("0.1.0"), std::string::npos) << out;
  EXPECT_NE(out.find("rc=0"), std::string::npos) << out;
}

TEST(LaunchCli, ACommandThatCannotRunIsAnError) {
  auto out = command_output(bin() + " launch --nproc-per-node 1 -- /nonexistent/program 2>&1; echo rc=$?");
  EXPECT_NE(out.find("cannot run /nonexistent/program"), std::string::npos) << out;
  EXPECT_NE(out.find("rc=127"), std::string::npos) << out;
  auto bad = command_output(bin() + " launch --nproc-per-node 0 -- true 2>&1; echo rc=$?");
  EXPECT_NE(bad.find("rc=2"), std::string::npos) << bad;
}

}  // namespace
}  // namespace dlready::test
