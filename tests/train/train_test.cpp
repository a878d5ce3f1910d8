// Training tests on the CPU: the hand-written step against LibTorch's own autograd + Adam, a
// reference loss trajectory, checkpoints (torn, tampered, resume bit for bit after SIGKILL), NaN
// detection, a real Fashion-MNIST run, and the CLI's refusal to die on a loader error.
#include <gtest/gtest.h>

#include <algorithm>
#include <sodium.h>
#include <signal.h>
#include <pty.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <filesystem>
#include <fstream>
#include <thread>

#include "fixture.hpp"
#include "synthetic.hpp"
#include "train/checkpoint.hpp"
#include "formats/metrics.hpp"
#include "train/model.hpp"
#include "train/trainer.hpp"

namespace dlready::test {
namespace {

// Any "<file>.tmp-XXXXXX" of write_file_atomically left in the file's directory.
bool temp_file_left_beside(const std::string& file) {
  std::filesystem::path p(file);
  for (const auto& e : std::filesystem::directory_iterator(p.parent_path()))
    if (e.path().filename().string().rfind(p.filename().string() + ".tmp", 0) == 0) return true;
  return false;
}


TrainOptions quick(const std::string& out) {
  TrainOptions o;
  o.out = out;
  o.epochs = 1;
  o.threads = 1;
  o.progress = false;
  return o;
}

std::vector<float> losses_of(const TrainOptions& o, const MnistDataset& ds, int max_steps = 1 << 30) {
  std::vector<float> losses;
  TrainHooks h;
  h.step_loss = [&](int64_t step, float loss) {
    if (step <= max_steps) losses.push_back(loss);
  };
  at::set_num_threads(1);
  auto r = train(o, to_tensors(ds, 0, torch::kCPU), torch::kCPU, h);
  EXPECT_EQ(r.status, ExitCode::ok) << r.error;
  return losses;
}

// The fused step must do exactly what LibTorch's autograd + torch::optim::Adam do.
TEST(Train, FusedStepMatchesAutogradAndTorchOptimAdam) {
  Fixture f;
  auto ds = synthetic_dataset(640, 100);
  auto o = quick(f.root + "/run");
  o.engine = Engine::fused;
  auto fused = losses_of(o, ds);

  // Independent reference: torch::nn + autograd + torch::optim::Adam on the same batches.
  at::set_num_threads(1);
  torch::manual_seed(o.seed);
  SimpleNet net;
  torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(o.lr));
  auto data = to_tensors(ds, 0, torch::kCPU);
  auto perm = epoch_permutation(640, o.seed, 0);
  std::vector<float> ref;
  for (int64_t b = 0; b < 640; b += 64) {
    auto idx = torch::from_blob(perm.data() + b, {64}, torch::kLong);
    adam.zero_grad();
    auto loss = torch::nn::functional::cross_entropy(net->forward(normalize_batch(data.train_x.index_select(0, idx))),
                                                     data.train_y.index_select(0, idx));
    loss.backward();
    adam.step();
    ref.push_back(loss.item<float>());
  }
  ASSERT_EQ(fused.size(), ref.size());
  for (size_t i = 0; i < ref.size(); ++i) EXPECT_NEAR(fused[i], ref[i], 1e-5 * std::max(1.0f, ref[i])) << "step " << i;
  auto ck = load_checkpoint(o.out + "/checkpoint.dlr");
  ASSERT_TRUE(ck.checkpoint) << ck.error;
  EXPECT_TRUE(torch::allclose(ck.checkpoint->tensors[0].second, net->fc1->weight, 1e-5, 1e-6));
}

// The CPU gatherer is the same operations as normalize_batch(index_select): the same bits.
TEST(Train, TheCpuBatchGathererIsNormalizeBatchBitForBit) {
  auto images = torch::randint(0, 256, {300, 784}, torch::kUInt8);
  auto labels = torch::randint(0, 10, {300}, torch::kLong);
  std::vector<int64_t> idx = {299, 0, 17, 17, 150, 3, 298};
  CpuBatchGatherer g;
  for (int round = 0; round < 2; ++round) {  // the second reuses the buffers
    auto [x, y] = g.gather(images, labels, idx.data(), static_cast<int64_t>(idx.size()));
    auto sel = torch::from_blob(idx.data(), {static_cast<int64_t>(idx.size())}, torch::kLong);
    EXPECT_TRUE(torch::equal(x, normalize_batch(images.index_select(0, sel))));
    EXPECT_TRUE(torch::equal(y, labels.index_select(0, sel)));
  }
  std::vector<int64_t> bad = {1, 300};
  EXPECT_THROW(g.gather(images, labels, bad.data(), 2), std::out_of_range);
}

TEST(Train, AutogradEngineEqualsFusedEngine) {
  Fixture f;
  auto ds = synthetic_dataset(640, 100);
  auto a = quick(f.root + "/a");
  a.engine = Engine::autograd;
  auto b = quick(f.root + "/b");
  b.engine = Engine::fused;
  auto la = losses_of(a, ds), lb = losses_of(b, ds);
  ASSERT_EQ(la.size(), lb.size());
  for (size_t i = 0; i < la.size(); ++i) EXPECT_NEAR(la[i], lb[i], 1e-5) << i;
}

// A reference trajectory (recorded with this code, LibTorch 2.11 CPU, 1 thread), checked with a
// tolerance so that a change in the maths is caught while BLAS rounding differences are not.
TEST(Train, ReferenceLossTrajectory) {
  Fixture f;
  auto l = losses_of(quick(f.root + "/run"), synthetic_dataset(640, 100));
  ASSERT_GE(l.size(), 10u);
  EXPECT_NEAR(l[0], std::log(10.0), 0.15) << "an untrained 10-class model starts near ln(10)";
  const float expected[] = {2.314085f, 1.801905f, 1.397752f, 1.034519f, 0.721189f,
                            0.489460f, 0.335041f, 0.209266f, 0.124680f, 0.083649f};
  for (size_t i = 0; i < sizeof expected / sizeof expected[0]; ++i) EXPECT_NEAR(l[i], expected[i], 2e-3) << "step " << i;
  EXPECT_LT(l[9], 0.5f * l[0]) << "the synthetic classes are easy: the loss must fall fast";
}

TEST(Train, SgdAndCnnTrain) {
  Fixture f;
  auto ds = synthetic_dataset(640, 200);
  auto o = quick(f.root + "/sgd");
  o.optimizer = OptimizerKind::sgd;
  o.lr = 0.05;
  o.momentum = 0.9;
  o.epochs = 2;
  at::set_num_threads(1);
  auto r = train(o, to_tensors(ds, 0, torch::kCPU), torch::kCPU, {});
  ASSERT_EQ(r.status, ExitCode::ok) << r.error;
  EXPECT_GT(r.test_acc, 0.9);
  auto c = quick(f.root + "/cnn");
  c.model = ModelKind::cnn;
  auto rc = train(c, to_tensors(ds, 0, torch::kCPU), torch::kCPU, {});
  ASSERT_EQ(rc.status, ExitCode::ok) << rc.error;
  EXPECT_GT(rc.test_acc, 0.5);
  EXPECT_EQ(rc.confusion.size(), 100u);
}

TEST(Train, NanLossStopsAndKeepsTheLastGoodCheckpoint) {
  Fixture f;
  auto ds = synthetic_dataset(640, 100);
  auto o = quick(f.root + "/run");
  at::set_num_threads(1);
  ASSERT_EQ(train(o, to_tensors(ds, 0, torch::kCPU), torch::kCPU, {}).status, ExitCode::ok);
  auto good = load_checkpoint(o.out + "/checkpoint.dlr");
  ASSERT_TRUE(good.checkpoint);
  // Poison the data: a NaN can only come from the maths, so feed labels through a huge lr.
  o.resume = true;
  o.epochs = 2;
  o.optimizer = OptimizerKind::adam;
  TrainOptions bad = o;
  bad.lr = 1e30;
  auto r = train(bad, to_tensors(ds, 0, torch::kCPU), torch::kCPU, {});
  // lr is part of the run identity: resuming with another lr is refused before any step.
  EXPECT_EQ(r.status, ExitCode::failed);
  EXPECT_NE(r.error.find("lr"), std::string::npos) << r.error;
  bad.resume = false;
  bad.out = f.root + "/bad";
  r = train(bad, to_tensors(ds, 0, torch::kCPU), torch::kCPU, {});
  EXPECT_EQ(r.status, ExitCode::failed);
  EXPECT_NE(r.error.find("nan"), std::string::npos) << r.error;
  EXPECT_FALSE(std::filesystem::exists(bad.out + "/checkpoint.dlr")) << "no checkpoint of a NaN model";
  // Checkpoints every step: the run stops at the first step whose state is not finite, and any
  // checkpoint left holds finite parameters.
  bad.out = f.root + "/bad-steps";
  bad.checkpoint_every = 1;
  r = train(bad, to_tensors(ds, 0, torch::kCPU), torch::kCPU, {});
  EXPECT_EQ(r.status, ExitCode::failed);
  EXPECT_NE(r.error.find("inf/NaN by step"), std::string::npos) << r.error;
  if (std::filesystem::exists(bad.out + "/checkpoint.dlr")) {
    auto kept = load_checkpoint(bad.out + "/checkpoint.dlr");
    ASSERT_TRUE(kept.checkpoint) << kept.error;
    for (const auto& [name, t] : kept.checkpoint->tensors)
      EXPECT_TRUE(torch::isfinite(t).all().item<bool>()) << name;
  }
}

TEST(Checkpoint, TornTamperedAndGarbageAreRefused) {
  Fixture f;
  Checkpoint ck;
  ck.meta = {{"epoch", 1}};
  ck.tensors = {{"w", torch::arange(12, torch::kFloat).view({3, 4})}};
  std::string path = f.root + "/c.dlr";
  ASSERT_TRUE(save_checkpoint(path, ck).ok());
  auto ok = load_checkpoint(path);
  ASSERT_TRUE(ok.checkpoint) << ok.error;
  EXPECT_TRUE(torch::equal(ok.checkpoint->tensors[0].second, ck.tensors[0].second));
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string tampered = bytes;
  tampered[bytes.size() / 2] ^= 1;
  EXPECT_NE(parse_checkpoint(tampered, "c").error.find("checksum mismatch"), std::string::npos);
  for (size_t cut : {size_t{0}, size_t{10}, bytes.size() / 2, bytes.size() - 1})
    EXPECT_FALSE(parse_checkpoint(bytes.substr(0, cut), "c").checkpoint) << cut;
  EXPECT_NE(parse_checkpoint(std::string(100, 'x'), "c").error.find("bad magic"), std::string::npos);
  EXPECT_FALSE(temp_file_left_beside(path)) << "no temp file left behind";
}

TEST(Checkpoint, ResumeRefusesATamperedFileAndLeavesIt) {
  Fixture f;
  auto ds = synthetic_dataset(320, 50);
  auto o = quick(f.root + "/run");
  at::set_num_threads(1);
  ASSERT_EQ(train(o, to_tensors(ds, 0, torch::kCPU), torch::kCPU, {}).status, ExitCode::ok);
  std::string path = o.out + "/checkpoint.dlr";
  {
    std::fstream io(path, std::ios::in | std::ios::out | std::ios::binary);
    io.seekp(200);
    io.put('\x7f');
  }
  auto before = std::filesystem::file_size(path);
  o.resume = true;
  o.epochs = 2;
  auto r = train(o, to_tensors(ds, 0, torch::kCPU), torch::kCPU, {});
  EXPECT_EQ(r.status, ExitCode::failed);
  EXPECT_NE(r.error.find("checksum mismatch"), std::string::npos) << r.error;
  EXPECT_EQ(std::filesystem::file_size(path), before);
}

// --- the dlready binary ----------------------------------------------------------------------

void write_dataset_dir(const std::string& dir, uint32_t n_train, uint32_t n_test) {
  auto ds = synthetic_dataset(n_train, n_test);
  std::filesystem::create_directories(dir);
  auto put = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(dir + "/" + name, std::ios::binary) << bytes;
  };
  put("train-images-idx3-ubyte", idx_bytes(ds.train.images));
  put("train-labels-idx1-ubyte", idx_bytes(ds.train.labels));
  put("t10k-images-idx3-ubyte", idx_bytes(ds.test.images));
  put("t10k-labels-idx1-ubyte", idx_bytes(ds.test.labels));
}

int sh(const std::string& cmd) { return WEXITSTATUS(std::system((cmd + " >/dev/null 2>&1").c_str())); }

NamedTensors tensors_of(const std::string& path) {
  auto ck = load_checkpoint(path);
  EXPECT_TRUE(ck.checkpoint) << ck.error;
  return ck.checkpoint ? ck.checkpoint->tensors : NamedTensors{};
}

void wait_for_file(const std::string& path) {
  while (!std::filesystem::exists(path)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

// The final checkpoints of an interrupted-and-resumed run and of the uninterrupted one: equal bit for bit.
void expect_same_checkpoint(const std::string& a, const std::string& b, int64_t stopped_at_step) {
  auto ta = tensors_of(a), tb = tensors_of(b);
  ASSERT_EQ(ta.size(), tb.size());
  for (size_t i = 0; i < ta.size(); ++i) {
    EXPECT_EQ(ta[i].first, tb[i].first);
    EXPECT_TRUE(torch::equal(ta[i].second, tb[i].second))
        << ta[i].first << " differs after resume (stopped at step " << stopped_at_step << ")";
  }
}

// The command of a 3-epoch run on 20000 synthetic samples (313 steps an epoch), and its
// uninterrupted result in <root>/a.
std::string run_uninterrupted(const Fixture& f, const std::string& flags) {
  std::string data = f.root + "/data";
  write_dataset_dir(data, 20000, 500);
  std::string base = std::string(DLREADY_BINARY) + " train --device cpu --threads 1 --epochs 3 --no-progress " +
                     "--engine autograd --data " + data + flags;
  EXPECT_EQ(sh(base + " --out " + f.root + "/a"), 0);
  return base;
}

// Each epoch's loss curve from <run>/metrics.jsonl.
std::vector<std::vector<LossPoint>> loss_curves(const std::string& run) {
  std::ifstream in(run + "/metrics.jsonl");
  std::vector<std::vector<LossPoint>> out;
  for (std::string line; std::getline(in, line);)
    out.push_back(epoch_metrics_from_json(nlohmann::json::parse(line)).loss_curve);
  return out;
}

// --tensorboard: the event files are read by TensorBoard's own reader (both CRCs, the Event
// protobuf, its accumulator) from the pinned venv, and hold what metrics.jsonl holds.
nlohmann::json read_tensorboard(const std::string& dir) {
  return nlohmann::json::parse(command_output(std::string(DLREADY_VENV_PYTHON) + " " + DLREADY_TENSORBOARD_READER +
                                              " " + dir + " 2>&1"));
}

TEST(TrainCli, TensorBoardEventsAreReadByTensorBoard) {
  if (!std::filesystem::exists(DLREADY_VENV_PYTHON)) GTEST_SKIP() << "no pinned venv (run scripts/setup.sh)";
  Fixture f;
  write_dataset_dir(f.root + "/data", 640, 64);
  std::string train = std::string(DLREADY_BINARY) + " train --no-progress --threads 1 --batch-size 32 --tensorboard" +
                      " --data " + f.root + "/data";
  auto first = command_output(train + " --epochs 2 --out " + f.root + "/a 2>&1; echo rc=$?");
  ASSERT_NE(first.find("rc=0"), std::string::npos) << first;
  EXPECT_NE(first.find("/audit.jsonl, " + f.root + "/a/tensorboard/\n"), std::string::npos)
      << "the wrote line names the event folder (issue 50, item 15)\n" << first;
  auto tb = read_tensorboard(f.root + "/a/tensorboard");
  EXPECT_EQ(tb["records"], 1 + 40 + 2) << "the version, 20 steps per epoch, one record per epoch";
  auto steps = tb["scalars"]["loss/train_steps"];
  auto curves = loss_curves(f.root + "/a");
  ASSERT_EQ(curves.size(), 2u);
  ASSERT_EQ(steps.size(), 40u) << tb.dump();
  for (size_t i = 0; i < 40; ++i) {
    const auto& point = curves[i / 20][i % 20];
    EXPECT_EQ(steps[i][0], static_cast<int64_t>(i + 1));
    EXPECT_NEAR(steps[i][1].get<double>(), point.loss, 1e-6 * std::max(1.0, point.loss));
  }
  std::ifstream in(f.root + "/a/metrics.jsonl");
  std::string line;
  for (int64_t step : {20, 40}) {
    ASSERT_TRUE(std::getline(in, line));
    auto m = epoch_metrics_from_json(nlohmann::json::parse(line));
    auto test_acc = tb["scalars"]["accuracy/test"][step / 20 - 1];
    EXPECT_EQ(test_acc[0], step);
    EXPECT_NEAR(test_acc[1].get<double>(), 100 * m.test_acc, 1e-4) << "percent, as the console prints it";
  }
  for (const char* tag : {"loss/train", "loss/test", "accuracy/train", "speed/samples_per_s", "time/epoch_seconds"})
    EXPECT_EQ(tb["scalars"][tag].size(), 2u) << tag;
  // Issue 35, item 12: the learning rate as TensorBoard users expect to see it.
  ASSERT_EQ(tb["scalars"]["learning_rate"].size(), 2u) << tb.dump();
  EXPECT_NEAR(tb["scalars"]["learning_rate"][0][1].get<double>(), 0.001, 1e-9);

  // A resumed run adds a file; TensorBoard shows each step once.
  ASSERT_EQ(sh(train + " --epochs 1 --out " + f.root + "/b"), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // the file name holds the second
  ASSERT_EQ(sh(train + " --epochs 2 --resume --out " + f.root + "/b"), 0);
  auto resumed = read_tensorboard(f.root + "/b/tensorboard")["scalars"]["loss/train_steps"];
  ASSERT_EQ(resumed.size(), 40u);
  for (size_t i = 0; i < 40; ++i) EXPECT_EQ(resumed[i][0], static_cast<int64_t>(i + 1));
}

TEST(TrainCli, KillAndResumeEqualsTheUninterruptedRun) {
  Fixture f;
  std::string base = run_uninterrupted(f, " --checkpoint-every 37");

  std::string b = f.root + "/b";
  pid_t pid = start_shell(base + " --out " + b + " >/dev/null 2>&1");
  wait_for_file(b + "/checkpoint.dlr");
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  ::kill(pid, SIGKILL);
  int st = 0;
  ::waitpid(pid, &st, 0);
  ASSERT_TRUE(WIFSIGNALED(st)) << "the run finished before it was killed: make the dataset larger";
  auto killed = load_checkpoint(b + "/checkpoint.dlr");
  ASSERT_TRUE(killed.checkpoint) << "a SIGKILL must leave a whole checkpoint: " << killed.error;
  int64_t at_step = killed.checkpoint->meta.value("global_step", int64_t{0});
  EXPECT_GT(at_step, 0);
  EXPECT_LT(at_step, 3 * 313) << "killed mid-run";

  ASSERT_EQ(sh(base + " --out " + b + " --resume"), 0);
  expect_same_checkpoint(f.root + "/a/checkpoint.dlr", b + "/checkpoint.dlr", at_step);
  // The audit log: the killed run has no end record (verify says so), the resumed run follows it.
  auto log = command_output("grep -o '\"event\":\"[a-z_]*\"' " + b + "/audit.jsonl | tr '\\n' ' '");
  EXPECT_NE(log.find("\"event\":\"checkpoint\" \"event\":\"run_start\" \"event\":\"resume\""), std::string::npos) << log;
  auto verified = command_output(DLREADY_BINARY " audit verify " + b + "/audit.jsonl");
  EXPECT_NE(verified.find("has no end record (killed"), std::string::npos) << verified;
  // The loss curve survives the kill: the same windows; only the one cut by the checkpoint differs.
  auto ca = loss_curves(f.root + "/a"), cb = loss_curves(b);
  ASSERT_EQ(ca.size(), 3u);
  ASSERT_EQ(cb.size(), 3u);
  int differing = 0;
  for (size_t e = 0; e < 3; ++e) {
    ASSERT_EQ(ca[e].size(), cb[e].size()) << "epoch " << e + 1;
    ASSERT_EQ(ca[e].size(), 79u) << "313 steps in windows of 4";
    for (size_t i = 0; i < ca[e].size(); ++i) {
      EXPECT_EQ(ca[e][i].end_step, cb[e][i].end_step);
      differing += std::fabs(ca[e][i].loss - cb[e][i].loss) > 1e-5;
    }
  }
  EXPECT_LE(differing, 1);
}

// Issue 35, item 5: resuming a finished run changes nothing and says so; resuming with other
// threads warns that the result will not be bit-identical.
TEST(TrainCli, ResumingAFinishedRunSaysNothingToDo) {
  Fixture f;
  std::string data = f.root + "/data", run = f.root + "/run";
  write_dataset_dir(data, 2000, 200);
  std::string base = std::string(DLREADY_BINARY) + " train --device cpu --no-progress --data " + data + " --out " + run;
  ASSERT_EQ(sh(base + " --threads 1 --epochs 1 --checkpoint-every 20"), 0);
  const std::string before = read_text(run + "/checkpoint.dlr"), metrics = read_text(run + "/metrics.jsonl");
  auto again = command_output(base + " --threads 1 --epochs 1 --resume 2>&1; echo rc=$?");
  EXPECT_NE(again.find("nothing to do: the run in " + run + " finished 1 epoch(s) (ask for more with --epochs 2)"),
            std::string::npos) << again;
  EXPECT_NE(again.find("rc=0"), std::string::npos) << again;
  EXPECT_EQ(again.find("resumed from"), std::string::npos) << again;
  EXPECT_EQ(read_text(run + "/checkpoint.dlr"), before) << "the files are not rewritten";
  EXPECT_EQ(read_text(run + "/metrics.jsonl"), metrics);
  auto js = command_output(base + " --threads 1 --epochs 1 --resume --json 2>/dev/null");
  EXPECT_NE(js.find("\"nothing_to_do\": true"), std::string::npos) << js;
  auto more = command_output(base + " --threads 2 --epochs 2 --resume 2>&1; echo rc=$?");
  EXPECT_NE(more.find("resumed from"), std::string::npos) << more;
  EXPECT_NE(more.find("the checkpoint was made with 1 thread(s), this run uses 2"), std::string::npos) << more;
  EXPECT_NE(more.find("resume with --threads 1 for that"), std::string::npos) << more;
  EXPECT_NE(more.find("rc=0"), std::string::npos) << more;
}

// Issue 35, item 6: on a machine other work keeps busy, the default is the idle processors, and
// the header says so; --threads and OMP_NUM_THREADS (a launcher's ranks) are obeyed as given.
TEST(TrainCli, ABusyMachineGetsFewerThreadsByDefault) {
  const int cpus = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
  if (cpus < 2) GTEST_SKIP() << "one processor: the default is one thread anyway";
  Fixture f;
  std::string data = f.root + "/data", run = f.root + "/run";
  write_dataset_dir(data, 2000, 200);
  // Someone else's work: one spinning process per processor (stopped at the end, 60 s at most;
  // SIGTERM, which timeout passes on to the loop it runs).
  std::vector<pid_t> spinners;
  for (int i = 0; i < cpus; ++i)
    spinners.push_back(start_shell("timeout 60 sh -c 'while :; do :; done' </dev/null >/dev/null 2>&1"));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  std::string base = std::string(DLREADY_BINARY) + " train --device cpu --no-progress --epochs 1 --data " + data +
                     " --overwrite --out " + run;
  auto busy = command_output("env -u OMP_NUM_THREADS -u MKL_NUM_THREADS " + base + " 2>&1; echo rc=$?");
  auto given = command_output("env -u OMP_NUM_THREADS " + base + " --threads 2 2>&1");
  auto launched = command_output("env OMP_NUM_THREADS=2 " + base + " 2>&1");
  auto eval = command_output("env -u OMP_NUM_THREADS " + std::string(DLREADY_BINARY) + " eval " + run +
                             "/checkpoint.dlr --data " + data + " 2>&1");
  for (pid_t p : spinners) ::kill(p, SIGTERM), ::waitpid(p, nullptr, 0);
  EXPECT_NE(busy.find(std::to_string(cpus) + " processors, "), std::string::npos) << busy;
  EXPECT_NE(busy.find(" busy: using 1 thread; --threads N to override"), std::string::npos) << busy;
  EXPECT_NE(busy.find(", 1 thread(s)\n"), std::string::npos) << busy;
  EXPECT_NE(busy.find("rc=0"), std::string::npos) << busy;
  EXPECT_EQ(given.find("busy: using"), std::string::npos) << given;
  EXPECT_NE(given.find(", 2 thread(s)\n"), std::string::npos) << given;
  EXPECT_EQ(launched.find("busy: using"), std::string::npos) << launched;
  EXPECT_NE(launched.find(", 2 thread(s)\n"), std::string::npos) << launched;
  EXPECT_NE(eval.find("dlready eval: " + std::to_string(cpus) + " processors, "), std::string::npos) << eval;
}

// Issue 35, item 9: one policy for an option that does nothing on this device — a note, and the
// run goes on without it; one default for --dist-timeout in train and launch.
TEST(TrainCli, AnOptionThatDoesNothingHereIsNotedAndTheRunGoesOn) {
  Fixture f;
  std::string data = f.root + "/data";
  write_dataset_dir(data, 1000, 100);
  std::string base = std::string(DLREADY_BINARY) + " train --device cpu --threads 1 --no-progress --epochs 1 --data " +
                     data + " --overwrite --out " + f.root + "/run";
  for (const char* option : {"--amp fp16", "--cuda-graphs", "--empty-cache"}) {
    auto out = command_output(base + " " + option + " --json 2>&1; echo rc=$?");
    EXPECT_NE(out.find("note: " + std::string(option) + " does nothing"),
              std::string::npos) << option << "\n" << out;
    EXPECT_NE(out.find("rc=0"), std::string::npos) << option << "\n" << out;
  }
  auto fp16 = command_output(base + " --amp fp16 --json 2>/dev/null");
  EXPECT_NE(fp16.find("\"amp\": \"off\""), std::string::npos) << "the JSON says what ran\n" << fp16;
  auto train_help = command_output(std::string(DLREADY_BINARY) + " train --help");
  auto launch_help = command_output(std::string(DLREADY_BINARY) + " launch --help");
  EXPECT_NE(train_help.find("--dist-timeout N (default 300)"), std::string::npos) << train_help;
  EXPECT_NE(launch_help.find("--dist-timeout N (default 300)"), std::string::npos) << launch_help;
}

// Issue 35, item 12: the confusion matrix names Fashion-MNIST's classes in the text, in
// <out>/confusion.svg and in eval --json (dlready.eval/2: 10 rows of 10); other data keeps digits.
TEST(TrainCli, TheConfusionMatrixNamesTheClasses) {
  Fixture f;
  const std::string data = f.root + "/fashion-mnist", run = f.root + "/run";
  write_dataset_dir(data, 1000, 100);
  auto out = command_output(std::string(DLREADY_BINARY) + " train --device cpu --threads 1 --no-progress --epochs 1 "
                            "--data " + data + " --out " + run + " 2>&1");
  EXPECT_NE(out.find("  0 T-shirt/top |"), std::string::npos) << out;
  EXPECT_NE(out.find("  9 Ankle boot  |"), std::string::npos) << out;
  EXPECT_NE(out.find(run + "/confusion.svg"), std::string::npos) << out;
  auto svg = read_text(run + "/confusion.svg");
  EXPECT_NE(svg.find(">Ankle boot</text>"), std::string::npos) << svg.substr(0, 400);
  auto j = nlohmann::json::parse(command_output(std::string(DLREADY_BINARY) + " eval " + run + "/checkpoint.dlr --json "
                                                "--threads 1 --data " + data));
  EXPECT_EQ(j["schema"], "dlready.eval/2");
  ASSERT_EQ(j["confusion"].size(), 10u);
  int64_t total = 0;
  for (const auto& row : j["confusion"]) {
    ASSERT_EQ(row.size(), 10u);
    for (const auto& n : row) total += n.get<int64_t>();
  }
  EXPECT_EQ(total, 100);
  EXPECT_EQ(j["classes"][0], "T-shirt/top");
  const std::string digits = f.root + "/digits";
  write_dataset_dir(digits, 1000, 100);
  auto plain = command_output(std::string(DLREADY_BINARY) + " eval " + run + "/checkpoint.dlr --threads 1 --data " + digits);
  EXPECT_NE(plain.find("\n  0 |"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("T-shirt"), std::string::npos) << plain;
}

// Runs `cmd` on a pseudo-terminal `columns` wide; `on_output` sees the output so far and may signal
// the process. Returns everything it wrote and its wait status.
std::pair<std::string, int> run_on_terminal(const std::string& cmd, unsigned short columns,
                                            const std::function<void(pid_t, const std::string&)>& on_output) {
  winsize ws{};
  ws.ws_row = 24, ws.ws_col = columns;
  int master = -1;
  pid_t pid = ::forkpty(&master, nullptr, nullptr, &ws);
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(master, buf, sizeof buf)) > 0;) {  // EIO once the child is gone
    out.append(buf, static_cast<size_t>(n));
    on_output(pid, out);
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  ::close(master);
  return {out, st};
}

// Each line as the terminal last drew it (text after the last carriage return, escapes removed).
std::vector<std::string> drawn_lines(const std::string& out) {
  std::vector<std::string> lines;
  std::string cur;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == '\r') {
      if (!cur.empty()) lines.push_back(cur);
      cur.clear();
    } else if (out[i] == '\n') {
      lines.push_back(cur);
      cur.clear();
    } else if (out.compare(i, 3, "\x1b[K") == 0) {
      i += 2;
    } else {
      cur += out[i];
    }
  }
  if (!cur.empty()) lines.push_back(cur);
  return lines;
}

// The progress line fits 60 columns; Ctrl-C's message starts on its own line.
TEST(TrainCli, OnANarrowTerminalTheProgressFitsAndCtrlCEndsIt) {
  Fixture f;
  // The bar is first drawn 200 ms into an epoch: 60000 samples keep an epoch longer than that on a
  // fast machine (CI once ran 20000 in 0.19 s and drew no bar until the last epoch).
  write_dataset_dir(f.root + "/data", 60000, 500);
  std::string cmd = std::string(DLREADY_BINARY) + " train --device cpu --threads 1 --epochs 3 --engine autograd --data " +
                    f.root + "/data --out " + f.root + "/run";
  bool sent = false;
  auto [out, st] = run_on_terminal(cmd, 60, [&](pid_t pid, const std::string& so_far) {
    bool bar = so_far.find("\r\x1b[Kepoch 1/3 [") != std::string::npos ||
               so_far.find("\r\x1b[Kepoch 2/3 [") != std::string::npos;
    if (!sent && bar) sent = ::kill(pid, SIGINT) == 0;
  });
  ASSERT_TRUE(sent) << "no progress line on a terminal: " << out;
  ASSERT_TRUE(WIFEXITED(st)) << out;
  EXPECT_EQ(WEXITSTATUS(st), to_int(ExitCode::interrupted)) << out;
  for (const auto& line : drawn_lines(out))
    if (line.rfind("epoch ", 0) == 0 && line.find('[') != std::string::npos)
      EXPECT_LE(line.size(), 59u) << "a progress line wider than the terminal wraps: " << line;
  auto at = out.find("dlready train: stopped by a signal");
  ASSERT_NE(at, std::string::npos) << out;
  EXPECT_TRUE(at > 0 && (out[at - 1] == '\n' || out[at - 1] == '\r')) << "glued to the progress line: " << out;
}

// Under launch, rank 0's header comes first and its progress line is shown after its prefix.
TEST(LaunchCli, RankZerosProgressIsShownOnTheLaunchersTerminal) {
  Fixture f;
  write_dataset_dir(f.root + "/data", 60000, 500);  // an epoch past the bar's first 200 ms on a fast machine
  std::string cmd = std::string(DLREADY_BINARY) + " launch --nproc-per-node 2 --master-port 29721 -- " + DLREADY_BINARY +
                    " train --device cpu --epochs 1 --engine autograd --data " + f.root + "/data --out " + f.root + "/run";
  auto [out, st] = run_on_terminal(cmd, 60, [](pid_t, const std::string&) {});
  ASSERT_TRUE(WIFEXITED(st)) << out;
  ASSERT_EQ(WEXITSTATUS(st), 0) << out;
  auto header = out.find("[rank 0] dlready train: mlp on cpu");
  auto progress = out.find("\r\x1b[K[rank 0] epoch 1/1 [");
  ASSERT_NE(header, std::string::npos) << out;
  ASSERT_NE(progress, std::string::npos) << "no progress under launch: " << out;
  EXPECT_LT(header, progress);
  for (const auto& line : drawn_lines(out))
    if (line.find("] epoch 1/1 [") != std::string::npos) EXPECT_LE(line.size(), 59u) << line;
}

// SIGTERM (or Ctrl-C): the run stops at the next step with a checkpoint and exit status 130, and
// --resume finishes it with the uninterrupted run's parameters, bit for bit.
TEST(TrainCli, SigtermCheckpointsAtTheNextStepAndResumeFinishesTheRun) {
  Fixture f;
  std::string base = run_uninterrupted(f, "");

  std::string b = f.root + "/b";
  pid_t pid = start_shell(base + " --out " + b + " >" + f.root + "/b.log 2>&1");
  // No --checkpoint-every: the first checkpoint is the end of epoch 1; stop in the middle of epoch 2.
  wait_for_file(b + "/checkpoint.dlr");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ::kill(pid, SIGTERM);
  int st = 0;
  ::waitpid(pid, &st, 0);
  ASSERT_TRUE(WIFEXITED(st)) << "SIGTERM must not kill the run: " << command_output("cat " + f.root + "/b.log");
  ASSERT_EQ(WEXITSTATUS(st), to_int(ExitCode::interrupted)) << command_output("cat " + f.root + "/b.log");
  EXPECT_NE(command_output("cat " + f.root + "/b.log").find("--resume"), std::string::npos);
  auto stopped = load_checkpoint(b + "/checkpoint.dlr");
  ASSERT_TRUE(stopped.checkpoint) << stopped.error;
  int64_t at_step = stopped.checkpoint->meta.value("global_step", int64_t{0});
  EXPECT_GT(at_step, 313) << "saved when stopped, after the epoch-1 checkpoint";

  ASSERT_EQ(sh(base + " --out " + b + " --resume"), 0);
  expect_same_checkpoint(f.root + "/a/checkpoint.dlr", b + "/checkpoint.dlr", at_step);
  // The audit log tells the story: a stop by signal after the epoch-1 checkpoint, then a resume.
  auto log = command_output("grep -o '\"event\":\"[a-z_]*\"' " + b + "/audit.jsonl | tr '\\n' ' '");
  EXPECT_NE(log.find("\"event\":\"checkpoint\" \"event\":\"checkpoint\" \"event\":\"stop\" \"event\":\"run_start\" "
                     "\"event\":\"resume\""),
            std::string::npos)
      << log;
}

TEST(TrainCli, RealFashionMnistOneEpoch) {
  const std::string dir = "/usr/share/datasets/fashion-mnist";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "dataset-fashion-mnist not installed";
  Fixture f;
  std::string cmd = std::string(DLREADY_BINARY) + " train --device cpu --epochs 1 --json --no-progress --out " + f.root +
                    "/run 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  ASSERT_EQ(WEXITSTATUS(::pclose(p)), 0) << out;
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["schema"], "dlready.train/1");
  EXPECT_GE(j["test_acc"].get<double>(), 0.84) << "SimpleNet reaches ~85.5% after one epoch on Fashion-MNIST";
  EXPECT_EQ(j["confusion"].size(), 100u);
  auto curves = loss_curves(f.root + "/run");
  ASSERT_EQ(curves.size(), 1u);
  EXPECT_EQ(curves[0].size(), 94u) << "938 steps: the loss every 10 steps";
  std::ifstream svg(f.root + "/run/curves.svg");
  std::string s((std::istreambuf_iterator<char>(svg)), std::istreambuf_iterator<char>());
  EXPECT_NE(s.find("<svg"), std::string::npos);
  EXPECT_NE(s.find("polyline"), std::string::npos);
}

TEST(TrainCli, LoaderFailureIsExplainedNotFatal) {
  Fixture f;
  f.write("/libdlready_train.so", "not a shared object");
  std::string out_file = f.root + "/out.txt";
  int rc = WEXITSTATUS(std::system(("DLREADY_TRAIN_MODULE=" + f.root + "/libdlready_train.so " + DLREADY_BINARY +
                                    " train > " + out_file + " 2>&1").c_str()));
  EXPECT_EQ(rc, to_int(ExitCode::cannot_load));
  std::ifstream in(out_file);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(s.find("cannot load the LibTorch module"), std::string::npos) << s;
  EXPECT_NE(s.find(f.root + "/libdlready_train.so"), std::string::npos) << s;
  EXPECT_NE(s.find("What dlready doctor says"), std::string::npos) << s;
  EXPECT_NE(s.find("scripts/setup.sh"), std::string::npos) << s;
}

TEST(TrainCli, BadDataAndBadFlags) {
  Fixture f;
  f.mkdir("/empty");
  std::string out = f.root + "/o.txt";
  int rc = WEXITSTATUS(std::system((std::string(DLREADY_BINARY) + " train --data " + f.root + "/empty > " + out + " 2>&1").c_str()));
  EXPECT_EQ(rc, to_int(ExitCode::failed));
  std::ifstream in(out);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(s.find("no train-images-idx3-ubyte"), std::string::npos) << s;
  EXPECT_EQ(sh(std::string(DLREADY_BINARY) + " train --model resnet"), 2);
  EXPECT_EQ(sh(std::string(DLREADY_BINARY) + " train --epochs 0"), 2);
  write_dataset_dir(f.root + "/data", 64, 16);
  EXPECT_EQ(sh(std::string(DLREADY_BINARY) + " train --device tpu --data " + f.root + "/data --out " + f.root + "/r"), 2)
      << "not a device: a usage error";
}

// A checkpoint file rebuilt around an edited header: a valid checksum over crafted content.
std::string forge_checkpoint(const nlohmann::json& header, const std::string& payload) {
  std::string h = header.dump();
  std::string out("DLRCKPT1", 8);
  uint64_t hl = h.size();
  out.append(reinterpret_cast<const char*>(&hl), sizeof hl);
  out += h + payload;
  unsigned char sum[crypto_generichash_BYTES];
  crypto_generichash(sum, sizeof sum, reinterpret_cast<const unsigned char*>(out.data()), out.size(), nullptr, 0);
  return out + std::string(reinterpret_cast<char*>(sum), sizeof sum);
}

// The checksum is unkeyed, so it proves nothing about intent: every field and tensor of a
// checksum-valid checkpoint is still checked before use, and each problem is one "cannot resume" line.
TEST(Checkpoint, CraftedButChecksumValidFilesAreRefusedFieldByField) {
  auto ds = synthetic_dataset(256, 64);
  Fixture f;
  TrainOptions o;
  o.out = f.root + "/run";
  o.epochs = 1;
  o.progress = false;
  auto data = to_tensors(ds, 0, torch::kCPU);
  ASSERT_EQ(train(o, data, torch::kCPU, {}).status, ExitCode::ok);
  std::string bytes = command_output("cat " + o.out + "/checkpoint.dlr");
  uint64_t hl;
  std::memcpy(&hl, bytes.data() + 8, sizeof hl);
  auto header = nlohmann::json::parse(bytes.substr(16, hl));
  std::string payload = bytes.substr(16 + hl, bytes.size() - 16 - hl - crypto_generichash_BYTES);
  auto nan_payload = payload;
  size_t bias_at = 0;
  for (const auto& e : header["tensors"])
    if (e["name"] == "fc1.bias") bias_at = e["offset"].get<size_t>();
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(nan_payload.data() + bias_at, &nan, sizeof nan);
  struct Case {
    std::string what;
    std::function<void(nlohmann::json&)> edit;
    std::string payload;
  };
  std::vector<Case> cases = {
      {"epoch", [](nlohmann::json& h) { h["meta"]["epoch"] = int64_t{1} << 31; }, payload},
      {"step_in_epoch", [](nlohmann::json& h) { h["meta"]["step_in_epoch"] = -1; }, payload},
      {"epoch", [](nlohmann::json& h) { h["meta"]["epoch"] = "two"; }, payload},
      {"history", [](nlohmann::json& h) { h["meta"]["history"] = 7; }, payload},
      {"loss_curve", [](nlohmann::json& h) { h["meta"]["loss_curve"] = {{5, 0.3}, {5, 0.2}}; }, payload},
      {"loss_curve", [](nlohmann::json& h) { h["meta"]["loss_curve"] = {{1 << 30, 0.3}}; }, payload},
      {"loss_curve", [](nlohmann::json& h) { h["meta"]["history"][0]["loss_curve"] = {{1, "x"}}; }, payload},
      {"appears twice", [](nlohmann::json& h) { h["tensors"].push_back(h["tensors"][0]); }, payload},
      {"bad shape", [](nlohmann::json& h) {
         h["tensors"].push_back({{"name", "x"}, {"shape", {0, int64_t{1} << 62, int64_t{1} << 62}}, {"offset", 0}, {"bytes", 0}});
       }, payload},
      {"missing", [](nlohmann::json& h) { h["tensors"].erase(0); }, payload},
      {"NaN", [](nlohmann::json&) {}, nan_payload},
  };
  for (const auto& c : cases) {
    auto h = header;
    c.edit(h);
    std::ofstream(o.out + "/checkpoint.dlr", std::ios::binary) << forge_checkpoint(h, c.payload);
    auto resumed = o;
    resumed.resume = true;
    resumed.epochs = 2;
    TrainResult r;
    ASSERT_NO_THROW(r = train(resumed, data, torch::kCPU, {})) << c.what;
    EXPECT_EQ(r.status, ExitCode::failed) << c.what;
    EXPECT_EQ(r.error.rfind("cannot resume", 0), 0u) << c.what << ": " << r.error;
    EXPECT_NE(r.error.find(c.what), std::string::npos) << c.what << ": " << r.error;
    EXPECT_EQ(r.error.find('\n'), std::string::npos) << r.error;
  }
}

// A checkpoint path that is a device or a FIFO is refused at once (it used to hang on /dev/zero).
TEST(Checkpoint, DevicesAndFifosAreNotCheckpoints) {
  Fixture f;
  f.link("/zero.dlr", "/dev/zero");
  ASSERT_EQ(::mkfifo((f.root + "/fifo.dlr").c_str(), 0600), 0);
  for (const char* name : {"/zero.dlr", "/fifo.dlr"}) {
    auto t0 = std::chrono::steady_clock::now();
    auto ld = load_checkpoint(f.root + name);
    EXPECT_FALSE(ld.checkpoint) << name;
    EXPECT_NE(ld.error.find("not a checkpoint"), std::string::npos) << ld.error;
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
  }
}

// An --out that cannot hold the run's files is refused before training (not "wrote ..." at the end).
TEST(TrainCli, AnUnusableOutIsRefusedUpFront) {
  Fixture f;
  write_dataset_dir(f.root + "/data", 64, 16);
  f.mkdir("/run/checkpoint.dlr");  // a directory where the checkpoint should go
  for (const std::string& out : {std::string("/etc/passwd"), std::string("/dev/null"), f.root + "/run"}) {
    std::string log = f.root + "/o.txt";
    int rc = WEXITSTATUS(std::system((std::string(DLREADY_BINARY) + " train --epochs 1 --data " + f.root +
                                      "/data --out " + out + " > " + log + " 2>&1").c_str()));
    std::string text = command_output("cat " + log);
    EXPECT_EQ(rc, 2) << out << ": " << text;
    EXPECT_NE(text.find("--out " + out), std::string::npos) << text;
    EXPECT_EQ(text.find("wrote"), std::string::npos) << text;
    EXPECT_EQ(text.find("epoch 1/1"), std::string::npos) << "refused only after training:\n" << text;
  }
}

// A run directory that holds a run is not replaced by a new run without --overwrite (issue 15,
// item 2): the checkpoint stays byte for byte; --resume and --overwrite both proceed.
TEST(TrainCli, AnExistingRunIsNotOverwrittenSilently) {
  Fixture f;
  write_dataset_dir(f.root + "/data", 64, 16);
  std::string train = std::string(DLREADY_BINARY) + " train --no-progress --data " + f.root + "/data --out " +
                      f.root + "/run";
  auto sh = [&](const std::string& extra) {
    return WEXITSTATUS(std::system((train + extra + " > " + f.root + "/o.txt 2>&1").c_str()));
  };
  ASSERT_EQ(sh(" --epochs 1"), 0) << command_output("cat " + f.root + "/o.txt");
  std::string before = command_output("cat " + f.root + "/run/checkpoint.dlr");
  EXPECT_EQ(sh(" --epochs 1 --seed 7"), 2);
  std::string text = command_output("cat " + f.root + "/o.txt");
  EXPECT_NE(text.find("already holds a run"), std::string::npos) << text;
  EXPECT_NE(text.find("--overwrite"), std::string::npos) << text;
  EXPECT_EQ(text.find("dlready train: mlp on"), std::string::npos) << "refused before the run's header\n" << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << "one line\n" << text;
  EXPECT_EQ(command_output("cat " + f.root + "/run/checkpoint.dlr"), before);
  EXPECT_EQ(sh(" --epochs 2 --resume"), 0) << command_output("cat " + f.root + "/o.txt");
  EXPECT_EQ(sh(" --epochs 1 --seed 7 --overwrite"), 0) << command_output("cat " + f.root + "/o.txt");
  EXPECT_EQ(sh(" --epochs 1 --resume --overwrite"), 2) << "the two exclude each other";
}

// A dataset without samples is an error naming the file, not a NaN loss about a checkpoint.
TEST(TrainCli, AnEmptyDatasetIsRefused) {
  Fixture f;
  write_dataset_dir(f.root + "/data", 0, 16);
  std::string log = f.root + "/o.txt";
  int rc = WEXITSTATUS(std::system((std::string(DLREADY_BINARY) + " train --data " + f.root + "/data --out " +
                                    f.root + "/run > " + log + " 2>&1").c_str()));
  std::string text = command_output("cat " + log);
  EXPECT_EQ(rc, 1) << text;
  EXPECT_NE(text.find("holds no samples"), std::string::npos) << text;
  EXPECT_EQ(text.find("checkpoint is kept"), std::string::npos) << text;
}

}  // namespace
}  // namespace dlready::test
