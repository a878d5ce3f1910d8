// Data-parallel training on c10d Gloo over loopback (label "torch"): real processes started by
// `dlready launch`; kept small for a 2-core machine.
#include <gtest/gtest.h>

#include <algorithm>
#include <signal.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "distributed/data_parallel.hpp"
#include "train/batches.hpp"
#include "fixture.hpp"
#include "checkpoint_params.hpp"
#include "train/checkpoint.hpp"
#include "train/resume.hpp"
#include "train/stop_protocol.hpp"

namespace dlready::test {
namespace {

const std::string kData = "/usr/share/datasets/fashion-mnist";
std::string bin() { return DLREADY_BINARY; }

TEST(DataParallel, ShardsCoverTheGlobalBatchLikeDistributedSampler) {
  std::vector<int64_t> perm{9, 8, 7, 6, 5, 4, 3, 2, 1, 0};
  auto s0 = rank_shard(perm, 0, 3), s1 = rank_shard(perm, 1, 3), s2 = rank_shard(perm, 2, 3);
  EXPECT_EQ(s0, (std::vector<int64_t>{9, 6, 3, 0}));
  EXPECT_EQ(s1, (std::vector<int64_t>{8, 5, 2, 9})) << "padded with the start of the permutation";
  EXPECT_EQ(s2, (std::vector<int64_t>{7, 4, 1, 8}));
  EXPECT_EQ(rank_shard(perm, 0, 1), perm);
}

// The real all-reduce replaces the list's tensors with views of its bucket; a stop requested on
// another rank only must still stop this one at the same poll.
TEST(DataParallel, AStopRequestedOnAnotherRankStopsThisOne) {
  DataParallel dp;
  dp.rank = 0, dp.world = 2;
  dp.average = [](std::vector<torch::Tensor>& ts) {
    for (auto& t : ts) t = t.clone();
    ts.back().fill_(0.5);  // the mean of this rank's 0 and the other rank's 1
  };
  StopProtocol stop([] { return false; }, dp, torch::TensorOptions().dtype(torch::kFloat));
  std::vector<torch::Tensor> grads{torch::ones({3})};
  for (int64_t step = 1; step <= 8; ++step) {
    stop.append_request(grads);
    dp.average(grads);
    stop.remove_request(grads);
    ASSERT_EQ(grads.size(), 1u);
    EXPECT_EQ(stop.stop_now(step), step == 8) << "step " << step << ": polled every 8 steps";
  }
}

TEST(DataParallel, GradientBucketsRespectTheCap) {
  std::vector<torch::Tensor> ts{torch::zeros({10}), torch::zeros({10}), torch::zeros({100}), torch::zeros({5})};
  auto b = bucket_ranges(ts, 80);  // bytes: 40, 40, 400, 20
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0], (std::pair<size_t, size_t>{0, 2}));
  EXPECT_EQ(b[1], (std::pair<size_t, size_t>{2, 3})) << "a tensor over the cap is a bucket of its own";
  EXPECT_EQ(b[2], (std::pair<size_t, size_t>{3, 4}));
  EXPECT_EQ(bucket_ranges(ts, kBucketBytes).size(), 1u);
}

void expect_same_model(const std::string& a, const std::string& b) {
  auto pa = model_params(a), pb = model_params(b);
  ASSERT_EQ(pa.size(), 4u);
  ASSERT_EQ(pa.size(), pb.size());
  for (size_t i = 0; i < pa.size(); ++i) {
    EXPECT_EQ(pa[i].first, pb[i].first);
    double diff = (pa[i].second - pb[i].second).abs().max().item<double>();
    EXPECT_LT(diff, 2e-5) << pa[i].first << " differs by " << diff;
  }
}

class Ranks : public ::testing::TestWithParam<int> {};

TEST_P(Ranks, SameModelAsOneRankWithTheSameGlobalBatch) {
  if (!std::filesystem::exists(kData)) GTEST_SKIP() << "dataset-fashion-mnist not installed";
  int world = GetParam();
  Fixture f;
  // 1920 samples: whole global batches of 64 (2 ranks x 32) and of 96 (3 ranks x 32).
  std::string common = " train --data " + kData + " --limit-train 1920 --epochs 2 --threads 1 --no-progress";
  int rc1 = std::system((bin() + common + " --batch-size " + std::to_string(32 * world) + " --out " + f.root +
                         "/one > " + f.root + "/one.log 2>&1").c_str());
  ASSERT_EQ(WEXITSTATUS(rc1), 0) << command_output("cat " + f.root + "/one.log");
  std::string port = std::to_string(29700 + world);
  const std::string job_log = f.root + "/job.jsonl";  // the launcher's and rank 0's records, one chain
  auto out = command_output(bin() + " launch --nproc-per-node " + std::to_string(world) + " --master-port " + port +
                            " --audit-log " + job_log + " -- " + bin() + common + " --batch-size 32 --audit-log " +
                            job_log + " --out " + f.root + "/many 2>&1; echo rc=$?");
  ASSERT_NE(out.find("rc=0"), std::string::npos) << out;
  EXPECT_NE(out.find("data parallel: " + std::to_string(world) + " ranks"), std::string::npos) << out;
  EXPECT_NE(out.find("global batch " + std::to_string(32 * world)), std::string::npos) << out;
  expect_same_model(f.root + "/one", f.root + "/many");
  // The audit log: rank 0 alone writes, so each event is there once — a start, one checkpoint per
  // epoch, one finish — and the chain verifies.
  std::vector<std::string> events;
  {
    std::ifstream in(f.root + "/many/audit.jsonl");
    for (std::string l; std::getline(in, l);) events.push_back(nlohmann::json::parse(l)["event"]);
  }
  EXPECT_EQ(events, (std::vector<std::string>{"run_start", "checkpoint", "checkpoint", "finish"}));
  auto verified = command_output(bin() + " audit verify " + f.root + "/many/audit.jsonl; echo rc=$?");
  EXPECT_NE(verified.find("intact: 4 record(s)"), std::string::npos) << verified;
  std::vector<std::string> job;
  {
    std::ifstream in(job_log);
    for (std::string l; std::getline(in, l);) job.push_back(nlohmann::json::parse(l)["event"]);
  }
  EXPECT_EQ(job, (std::vector<std::string>{"launch_start", "run_start", "checkpoint", "checkpoint", "finish",
                                           "launch_end"}));
  auto job_verified = command_output(bin() + " audit verify " + job_log);
  EXPECT_NE(job_verified.find("intact: 6 record(s)"), std::string::npos) << job_verified;
  EXPECT_EQ(job_verified.find("note:"), std::string::npos) << job_verified;
  // Only rank 0 wrote; resuming with another world size is refused.
  auto resume = command_output(bin() + " train --data " + kData + " --limit-train 1920 --epochs 3 --threads 1 "
                               "--no-progress --batch-size 32 --resume --out " + f.root + "/many 2>&1; echo rc=$?");
  EXPECT_NE(resume.find("made by " + std::to_string(world) + " rank(s)"), std::string::npos) << resume;
  EXPECT_NE(resume.find("rc=1"), std::string::npos) << resume;
}

INSTANTIATE_TEST_SUITE_P(Loopback, Ranks, ::testing::Values(2, 3));

double largest_difference(const std::string& a, const std::string& b) {
  auto pa = model_params(a), pb = model_params(b);
  double worst = 0;
  for (size_t i = 0; i < pa.size() && i < pb.size(); ++i)
    worst = std::max(worst, (pa[i].second - pb[i].second).abs().max().item<double>());
  return worst;
}

std::vector<nlohmann::json> metrics_of(const std::string& run);

// Issue 50 item 14: on the whole of Fashion-MNIST, 2 ranks x 32 and 1 rank x 64 agree through the
// first part of epoch 1 and drift apart later. Not a schedule bug: epoch 1 sees the same samples in
// the same steps (the same loss windows), and the drift after epoch 2 is no larger than what the
// same one-process run gets from 2 threads instead of 1 — rounding differences that training
// amplifies, as for any change in summation order.
TEST(DataParallel, FullDataDriftIsRoundingAmplifiedNotAnotherSchedule) {
  if (!std::filesystem::exists(kData)) GTEST_SKIP() << "dataset-fashion-mnist not installed";
  Fixture f;
  auto one = [&](const std::string& out, const std::string& threads) {
    std::string cmd = bin() + " train --data " + kData + " --epochs 2 --no-progress --batch-size 64 --threads " +
                      threads + " --out " + f.root + "/" + out + " > " + f.root + "/" + out + ".log 2>&1";
    return WEXITSTATUS(std::system(cmd.c_str()));
  };
  ASSERT_EQ(one("t1", "1"), 0) << command_output("cat " + f.root + "/t1.log");
  ASSERT_EQ(one("t2", "2"), 0) << command_output("cat " + f.root + "/t2.log");
  auto out = command_output(bin() + " launch --nproc-per-node 2 --master-port 29717 -- " + bin() + " train --data " +
                            kData + " --epochs 2 --no-progress --batch-size 32 --threads 1 --out " + f.root +
                            "/dp 2>&1; echo rc=$?");
  ASSERT_NE(out.find("rc=0"), std::string::npos) << out;
  auto m1 = metrics_of(f.root + "/t1"), mdp = metrics_of(f.root + "/dp");
  ASSERT_EQ(m1.size(), 2u);
  ASSERT_EQ(mdp.size(), 2u);
  // How soon the rounding shows depends on the CPU's GEMM kernels (on an AVX-512 machine epoch 1
  // agreed to the sample; on an AVX2 EPYC the curves part after ~440 steps): the schedule is what
  // is checked, the bits only within what rounding explains.
  EXPECT_NEAR(mdp[0].at("train_acc").get<double>(), m1[0].at("train_acc").get<double>(), 0.001) << "epoch 1";
  EXPECT_NEAR(mdp[0].at("test_acc").get<double>(), m1[0].at("test_acc").get<double>(), 0.005) << "epoch 1";
  EXPECT_NEAR(mdp[0].at("train_loss").get<double>(), m1[0].at("train_loss").get<double>(), 1e-3) << "epoch 1";
  EXPECT_NEAR(mdp[1].at("test_acc").get<double>(), m1[1].at("test_acc").get<double>(), 0.005) << "epoch 2";
  // The curve rank 0 writes is the job's loss (both ranks' samples), so epoch 1's is the one-process
  // run's: the same windows, and the same values until rounding has had time to grow (another
  // schedule would differ from the first window on).
  const auto& c1 = m1[0].at("loss_curve");
  const auto& cdp = mdp[0].at("loss_curve");
  ASSERT_EQ(cdp.size(), c1.size());
  for (size_t i = 0; i < c1.size(); ++i) {
    EXPECT_EQ(cdp[i][0], c1[i][0]);
    if (i < c1.size() / 4)
      EXPECT_NEAR(cdp[i][1].get<double>(), c1[i][1].get<double>(), 1e-4) << "window ending at step " << c1[i][0];
  }
  double across_ranks = largest_difference(f.root + "/t1", f.root + "/dp");
  double across_threads = largest_difference(f.root + "/t1", f.root + "/t2");
  EXPECT_GT(across_threads, 1e-3) << "the one-process run itself drifts with another summation order";
  EXPECT_LT(across_ranks, 1.5 * across_threads) << "2 ranks drift no more than 2 threads do";
}

std::vector<nlohmann::json> metrics_of(const std::string& run) {
  std::vector<nlohmann::json> rows;
  std::ifstream in(run + "/metrics.jsonl");
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) rows.push_back(nlohmann::json::parse(line));
  return rows;
}

// Two ranks stopped (SIGTERM) in the middle of an epoch and resumed: the model and every epoch's global
// train loss and accuracy are those of the uninterrupted run (the checkpoint carries the counters
// of both ranks, not only rank 0's).
TEST(DataParallel, MidEpochResumeGivesTheUninterruptedRun) {
  if (!std::filesystem::exists(kData)) GTEST_SKIP() << "dataset-fashion-mnist not installed";
  Fixture f;
  auto run = [&](const std::string& out, const std::string& port, const std::string& extra) {
    return bin() + " launch --nproc-per-node 2 --master-port " + port + " -- " + bin() + " train --data " + kData +
           " --limit-train 20000 --epochs 2 --threads 1 --no-progress --batch-size 32 --checkpoint-every 37" +
           " --engine autograd --out " + f.root + "/" + out + extra + " > " + f.root + "/" + out + ".log 2>&1";
  };
  ASSERT_EQ(WEXITSTATUS(std::system(run("a", "29714", "").c_str())), 0) << command_output("cat " + f.root + "/a.log");

  const std::string ck = f.root + "/b/checkpoint.dlr";
  pid_t pid = ::fork();
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", ("exec " + run("b", "29715", "")).c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Stop the launch (it forwards SIGTERM to both ranks) once a mid-epoch checkpoint of epoch 1 exists.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool mid_epoch = false;
  while (!mid_epoch && std::chrono::steady_clock::now() < deadline) {
    if (std::filesystem::exists(ck)) {
      auto ld = load_checkpoint(ck);
      mid_epoch = ld.checkpoint && ld.checkpoint->meta.value("epoch", -1) == 0 &&
                  ld.checkpoint->meta.value("step_in_epoch", int64_t{0}) > 0;
    }
    if (!mid_epoch) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ::kill(pid, SIGTERM);
  int st = 0;
  ::waitpid(pid, &st, 0);
  ASSERT_TRUE(mid_epoch) << command_output("cat " + f.root + "/b.log");
  // Both ranks agree on a step (their requests travel with the gradients), save, and exit 130;
  // the launch reports the signal it forwarded.
  std::string log = command_output("cat " + f.root + "/b.log");
  ASSERT_TRUE(WIFEXITED(st)) << log;
  EXPECT_EQ(WEXITSTATUS(st), 128 + SIGTERM) << log;
  EXPECT_NE(log.find("[rank 0] dlready train (rank 0/2): stopped by a signal"), std::string::npos) << log;
  EXPECT_NE(log.find("[rank 1] dlready train (rank 1/2): stopped by a signal"), std::string::npos) << log;
  auto stopped = load_checkpoint(ck);
  ASSERT_TRUE(stopped.checkpoint) << stopped.error;
  EXPECT_GT(stopped.checkpoint->meta.value("step_in_epoch", int64_t{0}), 0) << "the checkpoint left is mid-epoch";

  ASSERT_EQ(WEXITSTATUS(std::system(run("b", "29716", " --resume").c_str())), 0)
      << command_output("cat " + f.root + "/b.log");
  EXPECT_NE(command_output("cat " + f.root + "/b.log").find("resumed from"), std::string::npos);
  expect_same_model(f.root + "/a", f.root + "/b");
  auto ma = metrics_of(f.root + "/a"), mb = metrics_of(f.root + "/b");
  ASSERT_EQ(ma.size(), 2u);
  ASSERT_EQ(mb.size(), 2u);
  for (size_t e = 0; e < 2; ++e) {
    EXPECT_NEAR(mb[e].at("train_loss").get<double>(), ma[e].at("train_loss").get<double>(), 1e-5) << "epoch " << e + 1;
    EXPECT_NEAR(mb[e].at("train_acc").get<double>(), ma[e].at("train_acc").get<double>(), 1e-9) << "epoch " << e + 1;
    // The job's loss curve too, across the stop: the window after the resume starts from the
    // ranks' mean carried in rank 0's checkpoint.
    const auto& ca = ma[e].at("loss_curve");
    const auto& cb = mb[e].at("loss_curve");
    ASSERT_EQ(cb.size(), ca.size()) << "epoch " << e + 1;
    for (size_t i = 0; i < ca.size(); ++i)
      EXPECT_NEAR(cb[i][1].get<double>(), ca[i][1].get<double>(), 1e-4) << "epoch " << e + 1 << ", step " << ca[i][0];
  }
}

// Issue 50 item 16: `launch --max-restarts` starts a failed group again, and `dlready train` in it
// continues from the checkpoint the failed attempt left instead of refusing its own run directory.
// The first attempt trains one epoch and then fails; the second is asked for two.
TEST(DataParallel, ARestartedGroupResumesFromItsCheckpoint) {
  if (!std::filesystem::exists(kData)) GTEST_SKIP() << "dataset-fashion-mnist not installed";
  Fixture f;
  auto out = command_output(bin() + " launch --nproc-per-node 2 --max-restarts 1 -- sh -c 'E=$((TORCHELASTIC_RESTART_COUNT + 1)); " +
                            bin() + " train --data " + kData + " --limit-train 1920 --threads 1 --no-progress "
                            "--batch-size 32 --epochs $E --out " + f.root + "/run && [ $E = 2 ]' 2>&1; echo rc=$?");
  EXPECT_NE(out.find("restart 1 of 1"), std::string::npos) << out;
  EXPECT_NE(out.find("[rank 0] resumed from " + f.root + "/run/checkpoint.dlr at epoch 2"), std::string::npos) << out;
  EXPECT_EQ(out.find("already holds a run"), std::string::npos) << out;
  EXPECT_NE(out.find("rc=0"), std::string::npos) << out;
  EXPECT_EQ(metrics_of(f.root + "/run").size(), 2u) << out;
}

TEST(DataParallel, OnlyARestartWithACheckpointContinuesIt) {
  Fixture f;
  TrainOptions o;
  o.out = f.root + "/run";
  o.overwrite = true;
  auto resumes = [&](const std::map<std::string, std::string>& env) { return continue_after_restart(o, env).resume; };
  EXPECT_FALSE(resumes({{"TORCHELASTIC_RESTART_COUNT", "1"}})) << "no checkpoint yet: a fresh start";
  f.write("/run/checkpoint.dlr", "x");
  EXPECT_FALSE(resumes({})) << "not started by a launcher";
  for (const char* no : {"0", "00", "", "x", "-1", "1e3"})
    EXPECT_FALSE(resumes({{"TORCHELASTIC_RESTART_COUNT", no}})) << no;
  auto again = continue_after_restart(o, {{"TORCHELASTIC_RESTART_COUNT", "2"}});
  EXPECT_TRUE(again.resume);
  EXPECT_FALSE(again.overwrite) << "the failed attempt's checkpoint is kept";
}

TEST(DataParallelFailures, KillingARankMidEpochStopsTheLaunchWithTheRankNamed) {
  if (!std::filesystem::exists(kData)) GTEST_SKIP() << "dataset-fashion-mnist not installed";
  Fixture f;
  auto t0 = std::chrono::steady_clock::now();
  auto out = command_output(bin() + " launch --nproc-per-node 2 --master-port 29710 -- sh -c 'if [ $RANK = 1 ]; then "
                            "(sleep 1.5; kill -9 $$) & fi; exec " + bin() + " train --data " + kData +
                            " --epochs 3 --no-progress --dist-timeout 20 --out " + f.root + "/run' 2>&1; echo rc=$?");
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 20) << "within the timeout";
  EXPECT_NE(out.find("rank 1 (pid"), std::string::npos) << out;
  EXPECT_NE(out.find("killed by signal 9"), std::string::npos) << out;
  EXPECT_EQ(out.find("rc=0"), std::string::npos) << out;
}

TEST(DataParallelFailures, AHungPeerMakesRankZeroExitWithinTheTimeout) {
  if (!std::filesystem::exists(kData)) GTEST_SKIP() << "dataset-fashion-mnist not installed";
  Fixture f;
  std::string args = " train --data " + kData + " --world-size 2 --master-port 29711 --dist-timeout 3 --epochs 5 --limit-train 20000 "
                     "--no-progress --out " + f.root + "/run";
  // Rank 1 is stopped (SIGSTOP) once the first epoch is done (rank 0 has written its metrics):
  // alive but silent in the middle of training, the worst case for a collective.
  auto out = command_output(bin() + args + " --rank 1 > /dev/null 2>&1 & p=$!; (while [ ! -f " + f.root +
                            "/run/metrics.jsonl ]; do sleep 0.1; done; kill -STOP $p) & " + bin() + args +
                            " --rank 0 2>&1; echo rc=$?; kill -9 $p; wait");
  EXPECT_NE(out.find("rank 0/2"), std::string::npos) << out;
  EXPECT_TRUE(out.find("hung") != std::string::npos || out.find("did not finish") != std::string::npos) << out;
  EXPECT_NE(out.find("rc=1"), std::string::npos) << out;
}

TEST(DataParallelFailures, PortInUseAndUnreachableMasterAreClearErrors) {
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(29712);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ::listen(s, 1);
  Fixture f;
  std::string common = " train --data " + kData + " --world-size 2 --dist-timeout 2 --epochs 1 --out " + f.root + "/r";
  auto busy = command_output(bin() + common + " --rank 0 --master-port 29712 2>&1; echo rc=$?");
  ::close(s);
  EXPECT_NE(busy.find("already in use"), std::string::npos) << busy;
  EXPECT_NE(busy.find("--master-port"), std::string::npos) << busy;
  auto away = command_output(bin() + common + " --rank 1 --master-port 29713 2>&1; echo rc=$?");
  EXPECT_NE(away.find("could not reach the master at 127.0.0.1:29713 within 2 s"), std::string::npos) << away;
  EXPECT_NE(away.find("rc=1"), std::string::npos) << away;
  // One clear line, not c10d's retries with their C++ stack traces.
  for (const auto* out : {&busy, &away}) {
    EXPECT_EQ(out->find("frame #"), std::string::npos) << *out;
    EXPECT_LE(std::count(out->begin(), out->end(), '\n'), 6) << *out;
  }
}

}  // namespace
}  // namespace dlready::test
