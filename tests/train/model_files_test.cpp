// Model files PyTorch users exchange: export-model writes the tutorial's state_dict as .pt and
// .safetensors, PyTorch (from the pinned venv) loads both into the tutorial's class — the .pt with
// torch.load(weights_only=True) — with the same logits as `dlready eval`; `eval` and
// `train --init` read files Python saved with torch.save and safetensors.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "fixture.hpp"
#include "train/model_files.hpp"

namespace dlready::test {
namespace {

const std::string kData = "/usr/share/datasets/fashion-mnist";
std::string bin() { return DLREADY_BINARY; }
std::string python() { return DLREADY_VENV_PYTHON; }
std::string interop() { return DLREADY_PYTORCH_INTEROP; }

nlohmann::json json_of(const std::string& cmd) {
  auto out = command_output(cmd);
  auto j = nlohmann::json::parse(out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << cmd << "\n" << out;
  return j;
}

void expect_same_evaluation(const nlohmann::json& ours, const nlohmann::json& theirs, const std::string& what) {
  ASSERT_TRUE(ours.contains("first_logits") && theirs.contains("first_logits")) << what << ours << theirs;
  EXPECT_NEAR(ours["test_acc"].get<double>(), theirs["test_acc"].get<double>(), 1e-12) << what;
  EXPECT_NEAR(ours["test_loss"].get<double>(), theirs["test_loss"].get<double>(), 1e-5) << what;
  for (size_t i = 0; i < 4; ++i)
    for (size_t k = 0; k < 10; ++k)
      EXPECT_NEAR(ours["first_logits"][i][k].get<double>(), theirs["first_logits"][i][k].get<double>(), 1e-5)
          << what << ": image " << i << ", class " << k;
}

TEST(ModelFiles, ExportedFilesLoadInPyTorchWithTheSameLogitsAsEval) {
  if (!std::filesystem::exists(kData)) GTEST_SKIP() << "dataset-fashion-mnist not installed";
  if (!std::filesystem::exists(python())) GTEST_SKIP() << "no pinned venv (run scripts/setup.sh)";
  Fixture f;
  ASSERT_EQ(std::system((bin() + " train --epochs 1 --limit-train 6400 --no-progress --out " + f.root +
                         "/run > /dev/null 2>&1").c_str()), 0);
  auto from_checkpoint = json_of(bin() + " eval " + f.root + "/run/checkpoint.dlr --json");
  EXPECT_GT(from_checkpoint["test_acc"].get<double>(), 0.7);
  for (const char* name : {"model.safetensors", "model.pt"}) {
    std::string file = f.root + "/" + name;
    auto out = command_output(bin() + " export-model " + f.root + "/run/checkpoint.dlr --out " + file + " 2>&1");
    ASSERT_NE(out.find("wrote " + file), std::string::npos) << out;
    auto theirs = json_of(python() + " " + interop() + " load " + file + " " + kData);
    expect_same_evaluation(from_checkpoint, theirs, std::string("the checkpoint vs PyTorch's load of ") + name);
    expect_same_evaluation(json_of(bin() + " eval " + file + " --json"), theirs, std::string("eval of ") + name);
  }
  auto out = command_output(bin() + " export-model " + f.root + "/run/checkpoint.dlr --out " + f.root + "/m.onnx 2>&1; echo rc=$?");
  EXPECT_NE(out.find("name it .pt or .safetensors"), std::string::npos) << out;
  EXPECT_NE(out.find("rc=2"), std::string::npos) << out;
}

TEST(ModelFiles, TrainStartsFromAStateDictPyTorchSaved) {
  if (!std::filesystem::exists(kData)) GTEST_SKIP() << "dataset-fashion-mnist not installed";
  if (!std::filesystem::exists(python())) GTEST_SKIP() << "no pinned venv (run scripts/setup.sh)";
  Fixture f;
  std::string file = f.root + "/init.safetensors";
  ASSERT_EQ(std::system((python() + " " + interop() + " save " + file + " 7").c_str()), 0);
  expect_same_evaluation(json_of(bin() + " eval " + file + " --json"),
                         json_of(python() + " " + interop() + " load " + file + " " + kData), "a save_file file");
  auto out = command_output(bin() + " train --epochs 1 --limit-train 640 --no-progress --init " + file + " --out " +
                            f.root + "/run 2>&1; echo rc=$?");
  EXPECT_NE(out.find("initialised from " + file + " (safetensors)"), std::string::npos) << out;
  EXPECT_NE(out.find("rc=0"), std::string::npos) << out;
  out = command_output(bin() + " train --model cnn --epochs 1 --no-progress --init " + file + " --out " + f.root +
                       "/cnn 2>&1; echo rc=$?");
  EXPECT_NE(out.find("holds a mlp model and this run trains --model cnn"), std::string::npos) << out;
  EXPECT_NE(out.find("rc=2"), std::string::npos) << out;
  // The tutorial's own way: torch.save(model.state_dict(), FILE).
  std::string pt = f.root + "/init.pt";
  ASSERT_EQ(std::system((python() + " " + interop() + " save " + pt + " 7").c_str()), 0);
  expect_same_evaluation(json_of(bin() + " eval " + pt + " --json"),
                         json_of(python() + " " + interop() + " load " + pt + " " + kData), "a torch.save file");
  out = command_output(bin() + " train --epochs 1 --limit-train 640 --no-progress --init " + pt + " --out " + f.root +
                       "/pt 2>&1; echo rc=$?");
  EXPECT_NE(out.find("initialised from " + pt + " (pt)"), std::string::npos) << out;
  EXPECT_NE(out.find("rc=0"), std::string::npos) << out;
}

TEST(ModelFiles, RoundTripsKeepEveryTensor) {
  torch::manual_seed(3);
  auto model = make_model(ModelKind::cnn, torch::kCPU);
  ModelWeights w{ModelKind::cnn, model.parameters(), WeightsFormat::pt};
  Fixture f;
  for (auto format : {WeightsFormat::pt, WeightsFormat::safetensors, WeightsFormat::checkpoint}) {
    std::string path = f.root + "/m." + to_string(format);
    ASSERT_TRUE(save_weights(path, format, w).ok());
    auto back = load_weights(path);
    ASSERT_TRUE(back.weights) << back.error;
    EXPECT_EQ(back.weights->kind, ModelKind::cnn);
    EXPECT_EQ(back.weights->format, format);
    ASSERT_EQ(back.weights->tensors.size(), w.tensors.size());
    for (size_t i = 0; i < w.tensors.size(); ++i) {
      EXPECT_EQ(back.weights->tensors[i].first, w.tensors[i].first);
      EXPECT_TRUE(torch::equal(back.weights->tensors[i].second, w.tensors[i].second)) << w.tensors[i].first;
    }
  }
}

// Damaged .pt files (every byte position flipped or the file cut, a few thousand of them) are
// refused or read, never a crash or a hang; what is read is still checked against the model.
TEST(ModelFiles, DamagedTorchSaveFilesNeverCrash) {
  torch::manual_seed(5);
  Fixture f;
  ASSERT_TRUE(save_weights(f.root + "/m.pt", WeightsFormat::pt,
                           {ModelKind::mlp, make_model(ModelKind::mlp, torch::kCPU).parameters(), WeightsFormat::pt})
                  .ok());
  std::ifstream in(f.root + "/m.pt", std::ios::binary);
  std::string good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto pickle_at = good.find("archive/data.pkl") + 16;  // the first entry's data follows its name
  int refused = 0;
  for (size_t k = 0; k < 3000; ++k) {
    std::string bad = good;
    size_t at = k < 1500 ? pickle_at + k % 1200 : (k * 7919) % good.size();
    bad[at] = static_cast<char>(bad[at] ^ (1 + k % 255));
    if (k % 10 == 0) bad.resize(at);
    WeightsLoad r;
    ASSERT_NO_THROW(r = parse_weights(bad, "/m.pt")) << "byte " << at;
    if (!r.weights) {
      ++refused;
      EXPECT_EQ(r.error.rfind("/m.pt: ", 0), 0u) << r.error;
    }
  }
  EXPECT_GT(refused, 1000);
}

std::string safetensors_with(const std::string& header_json, size_t data_bytes) {
  std::string out(8, '\0');
  uint64_t n = header_json.size();
  std::memcpy(out.data(), &n, 8);
  return out + header_json + std::string(data_bytes, '\0');
}

TEST(ModelFiles, MalformedFilesAreRefusedNamingTheFile) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "not a model file dlready knows"},
      {"hello, world", "not a model file dlready knows"},
      {"PK\x03\x04garbage", "not a zip archive"},
      {std::string("\xff\xff\xff\xff\xff\xff\xff\x7f{}", 10), "past the file's end"},
      {safetensors_with("{not json", 0), "not a JSON object"},
      {safetensors_with(R"({"fc1.weight":{"dtype":"F16","shape":[256,784],"data_offsets":[0,8]}})", 8), "dtype F16 is not one of"},
      {safetensors_with(R"({"fc1.weight":{"dtype":"F32","shape":[256,784],"data_offsets":[0,8]}})", 8),
       "do not fit"},
      {safetensors_with(R"({"fc1.weight":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 8), "has shape [2]"},
      {safetensors_with(R"({"fc9.weight":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 8), "no tensor 'fc1.weight'"},
  };
  for (const auto& [bytes, why] : cases) {
    WeightsLoad r;
    ASSERT_NO_THROW(r = parse_weights(bytes, "/m/x.bin")) << why;
    EXPECT_FALSE(r.weights) << why;
    EXPECT_EQ(r.error.rfind("/m/x.bin: ", 0), 0u) << r.error;
    EXPECT_NE(r.error.find(why), std::string::npos) << r.error;
  }
  Fixture f;
  ::mkfifo((f.root + "/fifo").c_str(), 0600);
  EXPECT_NE(load_weights(f.root + "/fifo").error.find("fifo"), std::string::npos);
  f.write("/junk.pt", "junk");
  auto out = command_output(bin() + " eval " + f.root + "/junk.pt 2>&1; echo rc=$?");
  EXPECT_NE(out.find("dlready eval: " + f.root + "/junk.pt: not a model file"), std::string::npos) << out;
  EXPECT_NE(out.find("rc=1"), std::string::npos) << out;
  out = command_output(bin() + " export-model " + f.root + "/junk.pt --out " + f.root + "/x.onnx 2>&1; echo rc=$?");
  EXPECT_NE(out.find("rc=1"), std::string::npos) << out;
}

// A .pt file is a zip whose data.pkl is the pickle; written by Python's zipfile, as torch.save does.
std::string torch_save_with_pickle(const Fixture& f, const std::string& name, const std::string& pickle) {
  std::string path = f.root + "/" + name;
  std::ofstream(f.root + "/data.pkl", std::ios::binary) << pickle;
  std::string py = "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n"
                   "    z.writestr('archive/data.pkl', open(sys.argv[2], 'rb').read())\n"
                   "    z.writestr('archive/version', '3\\n')\n";
  std::ofstream(f.root + "/mk.py") << py;
  command_output(python() + " " + f.root + "/mk.py " + path + " " + f.root + "/data.pkl");
  return path;
}

// Hostile model files (issue: hostile input, round 2): nesting that would exhaust the stack is
// refused with a reason, through the binary; a huge flat MARK is read in linear time.
TEST(ModelFiles, DeeplyNestedPicklesAndHeadersAreRefusedNotACrash) {
  Fixture f;
  auto deep_pt = torch_save_with_pickle(f, "deep.pt", ")" + std::string(200000, '\x85') + ".");
  auto out = command_output(bin() + " eval " + deep_pt + " 2>&1; echo rc=$?");
  EXPECT_NE(out.find("nested deeper than 32 levels"), std::string::npos) << out;
  EXPECT_NE(out.find("rc=1"), std::string::npos) << out;
  // 300,000 items after one MARK, then a tuple of them: linear, not quadratic (was 25 s).
  auto flat = torch_save_with_pickle(f, "flat.pt", "(" + std::string(300000, 'N') + "t.");
  auto t0 = std::chrono::steady_clock::now();
  auto r = load_weights(flat);
  EXPECT_FALSE(r.weights);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0) << r.error;
  // An opcode no state_dict has is named as pickletools shows it.
  auto odd = torch_save_with_pickle(f, "odd.pt", "S'x'\n.");
  EXPECT_NE(load_weights(odd).error.find("pickle opcode 0x53 'S'"), std::string::npos) << load_weights(odd).error;
  std::string header = R"({"fc1.weight":{"dtype":"F32","shape":)" + std::string(100000, '[') +
                       std::string(100000, ']') + R"(,"data_offsets":[0,8]}})";
  auto w = parse_weights(safetensors_with(header, 8), "/m/deep.safetensors");
  EXPECT_FALSE(w.weights);
  EXPECT_NE(w.error.find("nested deeper than 64 levels"), std::string::npos) << w.error;
  w = parse_weights(safetensors_with(R"({"fc1.weight":{"dtype":5,"shape":[2],"data_offsets":[0,8]}})", 8), "/m/t.safetensors");
  EXPECT_NE(w.error.find("/m/t.safetensors: tensor 'fc1.weight': no dtype string"), std::string::npos) << w.error;
  EXPECT_EQ(w.error.find("json.exception"), std::string::npos) << w.error;
  w = parse_weights(safetensors_with(R"({"fc1.weight":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                     R"("fc1.weight":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 8),
                    "/m/dup.safetensors");
  EXPECT_NE(w.error.find("appears twice"), std::string::npos) << w.error;
  w = parse_weights(safetensors_with(R"({"fc1.weight":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                     R"("fc1.bias":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8),
                    "/m/overlap.safetensors");
  EXPECT_NE(w.error.find("overlap in the file"), std::string::npos) << w.error;
}

// export-model and quantize never write over the file they read.
TEST(ModelFiles, AnOutputThatIsTheInputIsRefused) {
  Fixture f;
  ASSERT_TRUE(save_weights(f.root + "/m.pt", WeightsFormat::pt,
                           {ModelKind::mlp, make_model(ModelKind::mlp, torch::kCPU).parameters(), WeightsFormat::pt})
                  .ok());
  ::symlink((f.root + "/m.pt").c_str(), (f.root + "/alias.pt").c_str());
  std::string before = read_text(f.root + "/m.pt");
  for (const char* cmd : {" export-model ", " quantize "}) {
    auto out = command_output(bin() + cmd + f.root + "/m.pt --out " + f.root + "/alias.pt 2>&1; echo rc=$?");
    EXPECT_NE(out.find("is the input file itself"), std::string::npos) << out;
    EXPECT_NE(out.find("rc=2"), std::string::npos) << out;
  }
  EXPECT_EQ(read_text(f.root + "/m.pt"), before);
}

// Issue 62, item 6: a path that cannot be what it must be (a folder or nothing where a file is read,
// an output that exists or cannot be a file) is exit 2 for every command, as the README says; a file
// whose content is wrong stays 1. And no thread-choice line comes before the error.
TEST(ModelFiles, UnusablePathsExitTwoEverywhere) {
  Fixture f;
  f.mkdir("/adir");
  f.write("/exists.key", "someone's key");
  f.write("/garbage.pt", "not a model");
  const std::string dir = f.root + "/adir";
  for (const std::string& args : {"eval " + dir, "export-model " + dir + " --out " + f.root + "/x.pt",
                                  "quantize " + dir + " --out " + f.root + "/q.safetensors",
                                  "eval " + f.root + "/missing.pt", "keygen --out " + f.root + "/exists.key",
                                  "keygen --out " + dir, "snapshot --no-driver-probe --out " + dir,
                                  "snapshot --no-driver-probe --out " + f.root + "/no/such/folder/s.json"}) {
    auto run = run_command(bin() + " " + args + " 2>&1");
    EXPECT_EQ(run.status, 2) << args << "\n" << run.out;
    EXPECT_EQ(run.out.find("thread"), std::string::npos) << args << "\n" << run.out;
  }
  EXPECT_EQ(read_text(f.root + "/exists.key"), "someone's key");
  auto garbage = run_command(bin() + " eval " + f.root + "/garbage.pt 2>&1");
  EXPECT_EQ(garbage.status, 1) << "a file whose content is wrong is not a usage error\n" << garbage.out;
}

}  // namespace
}  // namespace dlready::test
