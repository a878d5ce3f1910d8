// dlready launch and the data-parallel configuration (no LibTorch needed).
#include <gtest/gtest.h>

#include <algorithm>
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

TEST(Launch, NprocPerNodeTakesTorchrunsWords) {
  EXPECT_EQ(choose_nproc("4", std::nullopt, 2).count, 4);
  EXPECT_EQ(choose_nproc("cpu", 8, 2).count, 2) << "cpu: processors, GPUs or not";
  EXPECT_EQ(choose_nproc("gpu", 8, 2).count, 8);
  EXPECT_EQ(choose_nproc("auto", 8, 2).count, 8) << "auto: one per GPU where there are GPUs";
  EXPECT_EQ(choose_nproc("auto", 0, 2).count, 2) << "else one per processor";
  EXPECT_EQ(choose_nproc("AUTO", std::nullopt, 3).count, 3);
  EXPECT_NE(choose_nproc("gpu", 0, 2).error.find("CUDA shows no GPU"), std::string::npos);
  EXPECT_NE(choose_nproc("gpu", std::nullopt, 2).error.find("cannot tell"), std::string::npos);
  for (const char* bad : {"0", "-1", "2x", "", "1025", "fast"})
    EXPECT_NE(choose_nproc(bad, 1, 1).error.find("expected a number"), std::string::npos) << bad;
}

// Issue 50 item 16: torchrun's --nproc-per-node gpu/auto, here from the doctor's driver probe (a
// fixture machine with 3 GPUs and its fake libcuda), CUDA_VISIBLE_DEVICES applying.
TEST(LaunchCli, NprocPerNodeGpuIsOneRankPerGpuCudaShows) {
  Fixture f;
  healthy_gpu_machine(f);
  write_driver_conf(f, "devices=3\ndev0.name=NVIDIA H100 80GB HBM3\ndev0.cc=9.0\ndev1.name=NVIDIA H100 80GB HBM3\n"
                       "dev1.cc=9.0\ndev2.name=NVIDIA H100 80GB HBM3\ndev2.cc=9.0\ncuda.driver_version=13000\n");
  auto launch = [&](const std::string& env, const std::string& spec) {
    return run_command(env + " " + bin() + " launch --root " + f.root + " --load-root-drivers --nproc-per-node " +
                       spec + " -- sh -c 'echo size=$WORLD_SIZE' 2>&1");
  };
  auto gpu = launch("", "gpu");
  EXPECT_EQ(gpu.status, 0) << gpu.out;
  EXPECT_NE(gpu.out.find("[rank 2] size=3"), std::string::npos) << gpu.out;
  EXPECT_NE(gpu.out.find("--nproc-per-node gpu: 3, the 3 GPU(s) CUDA shows"), std::string::npos) << gpu.out;
  auto one = launch("CUDA_VISIBLE_DEVICES=1", "auto");
  EXPECT_EQ(one.status, 0) << one.out;
  EXPECT_NE(one.out.find("[rank 0] size=1"), std::string::npos) << one.out;
  EXPECT_EQ(one.out.find("[rank 1]"), std::string::npos) << one.out;
  // No driver at all: auto is one rank per processor this process may run on; gpu is refused.
  Fixture bare;
  add_base_system(bare);
  auto cpu = run_command("taskset -c 0 " + bin() + " launch --root " + bare.root +
                         " --nproc-per-node auto -- sh -c 'echo size=$WORLD_SIZE' 2>&1");
  EXPECT_EQ(cpu.status, 0) << cpu.out;
  EXPECT_NE(cpu.out.find("[rank 0] size=1"), std::string::npos) << cpu.out;
  EXPECT_NE(cpu.out.find("1 processor(s) this process may use"), std::string::npos) << cpu.out;
  auto none = run_command(bin() + " launch --root " + bare.root + " --nproc-per-node gpu -- true 2>&1");
  EXPECT_EQ(none.status, 2) << none.out;
  EXPECT_NE(none.out.find("CUDA shows no GPU here"), std::string::npos) << none.out;
}

// Without --master-port a one-machine job meets on a free port, so two jobs side by side both run;
// --standalone is that, on 127.0.0.1, and refuses what contradicts one machine.
TEST(LaunchCli, AOneMachineJobWithoutAPortMeetsOnAFreeOne) {
  std::string job = bin() + " launch --nproc-per-node 2 -- sh -c 'sleep 0.5; echo port=$MASTER_PORT' 2>&1";
  auto out = command_output("(" + job + ") & (" + job + "); wait");
  size_t ports = 0;
  for (size_t at = out.find("port="); at != std::string::npos; at = out.find("port=", at + 1)) ++ports;
  EXPECT_EQ(ports, 4u) << "both jobs ran both ranks: " << out;
  EXPECT_EQ(out.find("port=29500"), std::string::npos) << out;
  EXPECT_NE(out.find("(a free port; --master-port sets one)"), std::string::npos) << out;
  EXPECT_EQ(out.find("in use"), std::string::npos) << out;
  auto standalone = run_command(bin() + " launch --standalone -- sh -c 'echo at=$MASTER_ADDR:$MASTER_PORT' 2>&1");
  EXPECT_EQ(standalone.status, 0) << standalone.out;
  EXPECT_NE(standalone.out.find("at=127.0.0.1:"), std::string::npos) << standalone.out;
  // Another address beside --standalone is refused, not silently replaced (issue 57, item 11).
  auto both = run_command(bin() + " launch --standalone --master-addr 10.9.9.9 -- true 2>&1");
  EXPECT_EQ(both.status, 2) << both.out;
  auto two = run_command(bin() + " launch --standalone --nnodes 2 -- true 2>&1");
  EXPECT_EQ(two.status, 2) << two.out;
  EXPECT_NE(two.out.find("--standalone is a one-machine job"), std::string::npos) << two.out;
  auto given = command_output(bin() + " launch --master-port 29444 -- sh -c 'echo port=$MASTER_PORT' 2>&1");
  EXPECT_NE(given.find("port=29444"), std::string::npos) << given;
}

// torchrun's --max-restarts: the failed group starts again, the attempt in TORCHELASTIC_RESTART_COUNT,
// until it succeeds or no restart is left (then the failing rank's status).
TEST(LaunchCli, MaxRestartsStartsTheLocalRanksAgain) {
  auto ok = run_command(bin() + " launch --nproc-per-node 2 --max-restarts 3 -- sh -c "
                        "'echo attempt=$TORCHELASTIC_RESTART_COUNT of $TORCHELASTIC_MAX_RESTARTS; "
                        "[ $TORCHELASTIC_RESTART_COUNT -ge 2 ] || exit 4' 2>&1");
  EXPECT_EQ(ok.status, 0) << ok.out;
  EXPECT_NE(ok.out.find("[rank 1] attempt=2 of 3"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("restart 2 of 3"), std::string::npos) << ok.out;
  EXPECT_EQ(ok.out.find("restart 3 of 3"), std::string::npos) << ok.out;
  auto spent = run_command(bin() + " launch --max-restarts 1 -- sh -c 'exit 5' 2>&1");
  EXPECT_EQ(spent.status, 5) << spent.out;
  EXPECT_NE(spent.out.find("no restart left (--max-restarts 1)"), std::string::npos) << spent.out;
  auto none = run_command(bin() + " launch -- sh -c 'echo attempt=$TORCHELASTIC_RESTART_COUNT; exit 5' 2>&1");
  EXPECT_EQ(none.status, 5) << none.out;
  EXPECT_EQ(none.out.find("attempt=1"), std::string::npos) << "no restart by default: " << none.out;
  auto across = run_command(bin() + " launch --nnodes 2 --max-restarts 1 -- true 2>&1");
  EXPECT_EQ(across.status, 2) << across.out;
  EXPECT_NE(across.out.find("one-machine job"), std::string::npos) << across.out;
}

}  // namespace
}  // namespace dlready::test
