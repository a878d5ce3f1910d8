// dlready snapshot / diff: stacks read from doctor reports of fixture machines, their
// differences, and the CLI (label "unit").
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>

#include "os/root_fs.hpp"
#include "fixture.hpp"
#include "diagnose/rules.hpp"
#include "report/render.hpp"
#include "snapshot/diff.hpp"
#include "snapshot/export.hpp"

namespace dlready::test {
namespace {

// Any "<file>.tmp-XXXXXX" of write_file_atomically left in the file's directory.
bool temp_file_left_beside(const std::string& file) {
  std::filesystem::path p(file);
  for (const auto& e : std::filesystem::directory_iterator(p.parent_path()))
    if (e.path().filename().string().rfind(p.filename().string() + ".tmp", 0) == 0) return true;
  return false;
}


Stack stack_of(const Fixture& f) {
  auto facts = f.facts();
  return stack_from_json(report_json(facts, diagnose(facts)));
}

const StackChange* change(const std::vector<StackChange>& cs, const std::string& area, const std::string& key_part) {
  for (const auto& c : cs)
    if (c.area == area && c.key.find(key_part) != std::string::npos) return &c;
  return nullptr;
}

void expect_change(const std::vector<StackChange>& cs, const std::string& area, const std::string& key_part,
                   const std::string& before, const std::string& after) {
  auto* c = change(cs, area, key_part);
  ASSERT_TRUE(c) << area << " / " << key_part << " did not change";
  EXPECT_EQ(c->before, before) << key_part;
  EXPECT_EQ(c->after, after) << key_part;
}

TEST(Snapshot, SameMachineHasNoDifferences) {
  Fixture f;
  healthy_gpu_machine(f);
  auto s = stack_of(f);
  ASSERT_TRUE(s.error.empty()) << s.error;
  EXPECT_GT(s.items.size(), 10u);
  EXPECT_TRUE(diff_stacks(s, stack_of(f)).empty());
}

TEST(Snapshot, DriverGpuTorchAndEnvironmentDifferencesAreFoundByArea) {
  Fixture a, b;
  healthy_gpu_machine(a);
  healthy_gpu_machine(b);
  replace_driver(b, "550.54.15", "devices=1\ndev0.name=NVIDIA A100-SXM4-80GB\ndev0.cc=8.0\ncuda.driver_version=12040\n");
  TorchSpec older;
  older.version = "2.5.1+cu124";
  older.cuda = "12.4";
  add_torch_venv(b, "/home/alice/venv", older);
  b.env["CUDA_VISIBLE_DEVICES"] = "0";
  auto cs = diff_stacks(stack_of(a), stack_of(b));

  expect_change(cs, "driver", "kernel module", "580.65.06", "550.54.15");
  expect_change(cs, "driver", "CUDA version", "13.0", "12.4");
  expect_change(cs, "python", "torch ", "2.11.0+cu130 (CUDA 13.0)", "2.5.1+cu124 (CUDA 12.4)");
  expect_change(cs, "environment", "CUDA_VISIBLE_DEVICES", "", "0");
  auto* gpu = change(cs, "gpus", "gpu 0");
  ASSERT_TRUE(gpu);
  EXPECT_NE(gpu->before.find("H100"), std::string::npos);
  EXPECT_NE(gpu->after.find("compute capability 8.0"), std::string::npos);
  // The cu130 torch of `before` cannot use the GPU behind after's 550 driver.
  auto meaning = consequences(stack_of(a), stack_of(b));
  ASSERT_EQ(meaning.size(), 1u);
  EXPECT_NE(meaning[0].find("torch 2.11.0+cu130 (CUDA 13.0) (before) needs an NVIDIA driver >= 580.65.06; after has "
                            "550.54.15"), std::string::npos) << meaning[0];
  EXPECT_TRUE(consequences(stack_of(a), stack_of(a)).empty());
  // Areas come in a fixed order, and each has its explanation.
  EXPECT_EQ(cs.front().area, "driver");
  for (const auto& c : cs) EXPECT_FALSE(why_it_matters(c.area).empty()) << c.area;
}

TEST(Snapshot, ATorchWithoutCodeForTheOtherGpuIsNamed) {
  Fixture a, b;
  healthy_gpu_machine(a);
  TorchSpec cu124;
  cu124.version = "2.5.1+cu124";
  cu124.cuda = "12.4";
  add_torch_venv(a, "/home/alice/venv", cu124);
  healthy_gpu_machine(b);
  replace_driver(b, "580.65.06", "devices=1\ndev0.name=NVIDIA GeForce RTX 5090\ndev0.cc=12.0\ncuda.driver_version=13000\n");
  auto meaning = consequences(stack_of(a), stack_of(b));
  ASSERT_EQ(meaning.size(), 1u) << (meaning.empty() ? "" : meaning[0]);
  EXPECT_NE(meaning[0].find("torch 2.5.1+cu124 (CUDA 12.4) (before) has no GPU code for compute capability 12.0"),
            std::string::npos) << meaning[0];
  EXPECT_NE(meaning[0].find("RTX 5090"), std::string::npos) << meaning[0];
  EXPECT_NE(meaning[0].find("no kernel image"), std::string::npos) << meaning[0];
}

TEST(Snapshot, WhatIsNotASnapshotIsSaidSo) {
  EXPECT_FALSE(stack_from_json(nlohmann::json::array()).error.empty());
  EXPECT_FALSE(stack_from_json({{"schema", "dlready.bench/1"}}).error.empty());
  auto odd = stack_from_json({{"facts", {{"os", 3}, {"python_envs", "x"}, {"driver_api", {{"devices", 1}}}}}});
  EXPECT_TRUE(odd.error.empty()) << "odd shapes are skipped, not fatal";
  EXPECT_TRUE(odd.items.empty());
}

nlohmann::json report_of(const Fixture& f) {
  auto facts = f.facts();
  return report_json(facts, diagnose(facts));
}

std::string conda_text(const nlohmann::json& doc) { return export_stack(doc, "conda").text; }

TEST(Export, RequirementsCondaAndDockerfileRebuildTheTorchStack) {
  Fixture f;
  healthy_gpu_machine(f);
  f.env["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True";
  auto doc = make_snapshot(report_of(f), "gpu-a", "2026-12-02T22:00:00Z");
  auto req = export_stack(doc, "requirements");
  ASSERT_TRUE(req.error.empty()) << req.error;
  // Issue 35, item 1: the fixture's torch came from PyPI (dist-info "2.11.0", version.py
  // "2.11.0+cu130"): pinned as pip recorded it, with no PyTorch index.
  EXPECT_NE(req.text.find("\ntorch==2.11.0\n"), std::string::npos) << req.text;
  EXPECT_EQ(req.text.find("--extra-index-url"), std::string::npos) << req.text;
  EXPECT_NE(req.text.find("driver >= 580.65.06"), std::string::npos) << req.text;
  EXPECT_NE(req.text.find("on gpu-a"), std::string::npos) << req.text;
  auto conda = export_stack(doc, "conda");
  EXPECT_NE(conda.text.find("  - python=3."), std::string::npos) << conda.text;
  EXPECT_NE(conda.text.find("    - torch==2.11.0\n"), std::string::npos) << conda.text;
  auto docker = export_stack(doc, "dockerfile");
  EXPECT_NE(docker.text.find("FROM python:3."), std::string::npos) << docker.text;
  EXPECT_NE(docker.text.find("RUN pip install --no-cache-dir torch==2.11.0 "), std::string::npos) << docker.text;
  EXPECT_NE(docker.text.find("ENV PYTORCH_CUDA_ALLOC_CONF=\"expandable_segments:True\""), std::string::npos) << docker.text;
  EXPECT_FALSE(export_stack(doc, "nix").error.empty());

  // A wheel from download.pytorch.org carries its local label in the dist-info: that index.
  Fixture g;
  healthy_gpu_machine(g);
  TorchSpec spec;
  spec.from_pytorch_index = true;
  g.remove("/home/alice/venv/lib/python3.11/site-packages/torch-2.11.0.dist-info");
  add_torch_venv(g, "/home/alice/venv", spec);
  auto local = make_snapshot(report_of(g), "gpu-b", "2026-12-02T22:00:00Z");
  req = export_stack(local, "requirements");
  EXPECT_NE(req.text.find("--extra-index-url https://download.pytorch.org/whl/cu130\ntorch==2.11.0+cu130\n"),
            std::string::npos) << req.text;
  docker = export_stack(local, "dockerfile");
  EXPECT_NE(docker.text.find("RUN pip install --no-cache-dir --extra-index-url https://download.pytorch.org/whl/cu130 "
                             "torch==2.11.0+cu130"), std::string::npos) << docker.text;
}

// Issue 15, item 1: the export is a lock of the whole environment — every distribution at its
// version, Python's patch version — and says which environment variables it leaves out, and why.
TEST(Export, ALockOfTheWholeEnvironmentThatNamesInvalidVariables) {
  Fixture f;
  healthy_gpu_machine(f);
  const std::string venv = "/home/alice/venv", sp = venv + "/lib/python3.11/site-packages";
  f.write(venv + "/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.7\n");
  f.mkdir(sp + "/torchvision-0.26.0.dist-info");
  f.mkdir(sp + "/numpy-2.4.6.dist-info");
  f.mkdir(sp + "/pip-26.3.dist-info");
  f.env["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments=true";
  auto doc = make_snapshot(report_of(f), "gpu-a", "2026-12-02T22:00:00Z");
  auto req = export_stack(doc, "requirements");
  ASSERT_TRUE(req.error.empty()) << req.error;
  for (const char* pin : {"\ntorch==2.11.0\n", "\ntorchvision==0.26.0\n", "\nnumpy==2.4.6\n",
                          "\nnvidia-cudnn-cu13==9.19.0.56 ; platform_system == \"Linux\"\n", "# Python 3.11.7\n"})
    EXPECT_NE(req.text.find(pin), std::string::npos) << pin << "\n" << req.text;
  EXPECT_EQ(req.text.find("pip=="), std::string::npos) << req.text;
  EXPECT_NE(req.text.find("# warning: PYTORCH_CUDA_ALLOC_CONF=\"expandable_segments=true\" is invalid"), std::string::npos)
      << req.text;
  ASSERT_EQ(req.warnings.size(), 1u);
  // Issue 50 item 13: what a pip lock cannot pin is said; the Linux-only wheels carry torch's marker.
  EXPECT_NE(req.text.find("# not pinned here: the Python interpreter (3.11.7), the NVIDIA driver, system libraries"),
            std::string::npos) << req.text;
  EXPECT_NE(conda_text(doc).find("  - python=3.11.7\n"), std::string::npos);
  EXPECT_NE(conda_text(doc).find("    - nvidia-nccl-cu13==2.28.9; platform_system == \"Linux\"\n"), std::string::npos)
      << conda_text(doc);
  auto docker = export_stack(doc, "dockerfile");
  EXPECT_NE(docker.text.find("FROM python:3.11.7-slim\n"), std::string::npos) << docker.text;
  EXPECT_NE(docker.text.find(" torchvision==0.26.0"), std::string::npos) << docker.text;
  EXPECT_EQ(docker.text.find("ENV PYTORCH_CUDA_ALLOC_CONF"), std::string::npos) << "an invalid value is not carried\n"
                                                                               << docker.text;
  auto bad = doc;
  bad["facts"]["python_envs"][0]["distributions"]["numpy\nRUN rm -rf /"] = "1.0";
  for (const char* format : {"requirements", "conda", "dockerfile"})
    EXPECT_FALSE(export_stack(bad, format).error.empty()) << format;
}

TEST(Export, NoTorchNoExport) {
  Fixture f;
  add_base_system(f);
  auto e = export_stack(report_of(f), "requirements");
  EXPECT_NE(e.error.find("no PyTorch install"), std::string::npos) << e.error;
  EXPECT_FALSE(export_stack(nlohmann::json::object(), "requirements").error.empty());
}

// A field holding a newline and a command must never become a line of the exported file.
TEST(Export, InjectedFieldsAreRefusedOrNeutralised) {
  Fixture f;
  healthy_gpu_machine(f);
  auto doc = make_snapshot(report_of(f), "gpu-a\nRUN rm -rf /", "2026-12-02T22:00:00Z");
  const std::string evil = "\nRUN rm -rf /";
  for (const char* key : {"version", "dist_version", "cuda"}) {
    auto bad = doc;
    auto& t = bad["facts"]["python_envs"][0]["torch"][0];
    t[key] = t[key].get<std::string>() + evil;
    if (std::string(key) == "version") t.erase("dist_version");  // version.py's, used without a dist-info
    for (const char* format : {"requirements", "conda", "dockerfile"}) {
      auto e = export_stack(bad, format);
      EXPECT_FALSE(e.error.empty()) << key << " " << format << ":\n" << e.text;
      EXPECT_EQ(e.text.find("RUN rm"), std::string::npos) << e.text;
    }
  }
  auto bad = doc;
  bad["facts"]["python_envs"][0]["python_version"] = "3.11" + evil;
  EXPECT_FALSE(export_stack(bad, "dockerfile").error.empty());
  bad = doc;
  bad["facts"]["python_envs"][0]["prefix"] = "/venv" + evil;
  bad["facts"]["environment"]["OMP_NUM_THREADS"] = "4" + evil;
  for (const char* format : {"requirements", "conda", "dockerfile"}) {
    auto e = export_stack(bad, format);
    ASSERT_TRUE(e.error.empty()) << e.error;
    // Every line is a comment or one we wrote: none starts with the injected command.
    EXPECT_EQ(e.text.find("\nRUN rm"), std::string::npos) << format << ":\n" << e.text;
  }
}

int run(const std::string& cmd) { return WEXITSTATUS(std::system((cmd + " >/dev/null 2>&1").c_str())); }

// Two snapshots of one machine, with and without the venv active: the NCCL the job loads is the
// wheel's beside dlready's own LibTorch either way — never the soname's "2" of a toolkit's copy
// (was "NCCL 2.28.9 -> 2").
TEST(SnapshotCli, TheJobsNcclIsTheSameWithOrWithoutTheVenvActive) {
  std::string venv = path_dirname(path_dirname(DLREADY_UV));
  Fixture f;
  std::string bin = DLREADY_BINARY;
  command_output("VIRTUAL_ENV=" + venv + " " + bin + " snapshot --out " + f.root + "/a.json 2>&1");
  command_output("env -u VIRTUAL_ENV " + bin + " snapshot --out " + f.root + "/b.json 2>&1");
  auto a = nlohmann::json::parse(read_text(f.root + "/a.json"), nullptr, false);
  if (a.is_discarded() || a["facts"]["own_module"].value("nccl_version", "").empty())
    GTEST_SKIP() << "dlready's LibTorch has no nvidia-nccl wheel beside it";
  auto diff = command_output(bin + " diff " + f.root + "/a.json " + f.root + "/b.json 2>&1");
  EXPECT_EQ(diff.find("\n  NCCL "), std::string::npos) << diff;
}

TEST(SnapshotCli, SnapshotThenDiff) {
  Fixture f;
  healthy_gpu_machine(f);
  const std::string bin = DLREADY_BINARY, a = f.root + "/a.json", b = f.root + "/b.json";
  ASSERT_EQ(run(bin + " snapshot --root " + f.root + " --no-driver-probe --out " + a), 0);
  std::ifstream in(a);
  auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j.at("schema"), "dlready.snapshot/1");
  EXPECT_FALSE(j.at("snapshot").at("created").get<std::string>().empty());
  EXPECT_TRUE(j.at("facts").is_object());
  EXPECT_FALSE(temp_file_left_beside(a)) << "written atomically";
  EXPECT_EQ(run(bin + " diff " + a + " " + a), 0);
  ASSERT_EQ(run("CUDA_VISIBLE_DEVICES=1 " + bin + " snapshot --root " + f.root + " --no-driver-probe --out " + b), 0);
  auto text = command_output(bin + " diff " + a + " " + b + "; echo rc=$?");
  EXPECT_NE(text.find("CUDA_VISIBLE_DEVICES"), std::string::npos) << text;
  EXPECT_NE(text.find("(absent) -> 1"), std::string::npos) << text;
  EXPECT_NE(text.find("rc=1"), std::string::npos) << text;
  auto js = nlohmann::json::parse(command_output(bin + " diff --json " + a + " " + b));
  EXPECT_EQ(js.at("schema"), "dlready.diff/1");
  EXPECT_EQ(js.at("changes").size(), 1u);

  f.write("/torn.json", "{\"facts\": {\"os\": ");
  auto torn = command_output(bin + " diff " + a + " " + f.root + "/torn.json 2>&1; echo rc=$?");
  EXPECT_NE(torn.find("not valid JSON"), std::string::npos) << torn;
  EXPECT_NE(torn.find("rc=2"), std::string::npos) << torn;
  EXPECT_NE(command_output(bin + " diff " + a + " /nonexistent.json 2>&1").find("dlready snapshot --out"), std::string::npos);
  EXPECT_EQ(run(bin + " diff " + a), 2) << "two files";

  // The fixture's venv is found through VIRTUAL_ENV, as a user's active environment would be.
  const std::string c = f.root + "/c.json";
  ASSERT_EQ(run("VIRTUAL_ENV=/home/alice/venv " + bin + " snapshot --root " + f.root + " --no-driver-probe --out " + c), 0);
  ASSERT_EQ(run(bin + " export " + c + " --format requirements --out " + f.root + "/requirements.txt"), 0);
  EXPECT_NE(command_output("cat " + f.root + "/requirements.txt").find("torch==2.11.0\n"), std::string::npos);
  EXPECT_EQ(run(bin + " export " + f.root + "/torn.json"), 2);
  EXPECT_EQ(run(bin + " export " + a + " --format nix"), 2);
}

// Issue 62, item 10: a machine against its own redacted snapshot: a LibTorch (and a toolkit) under the
// home is one row on both sides (~/libtorch), not "absent" twice under /home/alice and <home-1>.
TEST(SnapshotCli, ARedactedSnapshotNamesPathRowsAsTheMachinesOwn) {
  Fixture f;
  healthy_gpu_machine(f);
  f.write("/home/alice/libtorch/share/cmake/Torch/TorchConfig.cmake", "");
  f.write("/home/alice/libtorch/build-version", "2.11.0+cu130\n");
  const std::string bin = DLREADY_BINARY, a = f.root + "/a.json", b = f.root + "/b.json";
  const std::string env = "env -i PATH=/usr/bin:/bin HOME=/home/alice USER=alice ";
  ASSERT_EQ(run(env + bin + " snapshot --root " + f.root + " --no-driver-probe --out " + a), 0);
  ASSERT_EQ(run(env + bin + " snapshot --redact --root " + f.root + " --no-driver-probe --out " + b), 0);
  ASSERT_EQ(read_text(b).find("/home/alice"), std::string::npos) << "redacted";
  auto out = command_output(bin + " diff " + a + " " + b + " 2>&1");
  EXPECT_EQ(out.find("libtorch"), std::string::npos) << out;
  EXPECT_EQ(out.find("(absent)"), std::string::npos) << out;
}

// Issue 35, item 2: two snapshots of one machine, taken with and without the venv activated,
// are the same machine: the venv is found where dlready setup puts them either way, and the
// shell's VIRTUAL_ENV is not a difference of the machine.
TEST(SnapshotCli, ActivatingTheVenvChangesNothing) {
  Fixture f;
  add_base_system(f);
  add_torch_venv(f, "/home/alice/venvs/torch", TorchSpec{}, false);
  const std::string bin = DLREADY_BINARY, a = f.root + "/a.json", b = f.root + "/b.json";
  ASSERT_EQ(run("HOME=/home/alice " + bin + " snapshot --root " + f.root + " --no-driver-probe --out " + a), 0);
  ASSERT_EQ(run("HOME=/home/alice VIRTUAL_ENV=/home/alice/venvs/torch " + bin + " snapshot --root " + f.root +
                " --no-driver-probe --out " + b), 0);
  auto out = command_output(bin + " diff " + a + " " + b + " 2>&1; echo rc=$?");
  EXPECT_NE(out.find("no differences"), std::string::npos) << out;
  EXPECT_NE(out.find("rc=0"), std::string::npos) << out;
  EXPECT_NE(read_text(a).find("/home/alice/venvs/torch"), std::string::npos) << "found without activation";
}

// Issue 50 item 7: two machines keep their torch in other places (alice's ~/venv, bob's
// ~/.venv); diff compares torch with torch in one row, and names the variable bob's doctor calls
// invalid instead of listing it as a mere change.
TEST(SnapshotCli, DiffComparesTorchWithTorchAcrossMachinesAndNamesAnInvalidVariable) {
  Fixture alice, bob;
  healthy_gpu_machine(alice);
  healthy_gpu_machine(bob);
  bob.remove("/home/alice/venv");
  TorchSpec older;
  older.version = "2.10.0+cu128";
  older.cuda = "12.8";
  older.pins = older.installed = {{"nvidia-cudnn-cu12", "9.10.2.21"}, {"nvidia-nccl-cu12", "2.27.3"}};
  add_torch_venv(bob, "/home/bob/.venv", older, false);
  alice.env["HOME"] = "/home/alice";
  bob.env["HOME"] = "/home/bob";
  bob.env["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments=true";
  const std::string bin = DLREADY_BINARY, a = alice.root + "/a.json", b = bob.root + "/b.json";
  ASSERT_EQ(run(alice.env_command() + " " + bin + " snapshot --root " + alice.root + " --load-root-drivers --out " + a), 0);
  ASSERT_EQ(run(bob.env_command() + " " + bin + " snapshot --root " + bob.root + " --load-root-drivers --out " + b), 0);
  auto out = command_output(bin + " diff " + a + " " + b + " 2>&1; echo rc=$?");
  EXPECT_NE(out.find("torch ~/venv | ~/.venv"), std::string::npos) << out;
  EXPECT_NE(out.find("2.11.0+cu130 (CUDA 13.0) -> 2.10.0+cu128 (CUDA 12.8)"), std::string::npos) << out;
  EXPECT_EQ(out.find("(absent) -> 2.10.0"), std::string::npos) << "not an unrelated row: " << out;
  EXPECT_NE(out.find("python ~/venv | ~/.venv (moved)"), std::string::npos) << "their Pythons too: " << out;
  EXPECT_NE(out.find("after: PYTORCH_CUDA_ALLOC_CONF is not valid"), std::string::npos) << out;
  EXPECT_NE(out.find("[alloc-conf-invalid]"), std::string::npos) << out;
  EXPECT_NE(out.find("rc=1"), std::string::npos) << out;
  auto j = nlohmann::json::parse(command_output(bin + " diff --json " + a + " " + b));
  EXPECT_NE(j.at("consequences").dump().find("alloc-conf-invalid"), std::string::npos) << j.dump(2);
}

}  // namespace
}  // namespace dlready::test
