// `dlready setup` installing for real (label "unit"): virtual environments made by python -m venv
// and filled by pip from a PEP 503 index on 127.0.0.1 (tests/tools/torch_index.py: generated torch
// wheels with real dist-info and no payload, one index per CUDA variant, as download.pytorch.org
// lays them out). No network beyond loopback; the proof needs a real torch and is skipped here.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/text.hpp"
#include "fixture.hpp"
#include "os/posix_fs.hpp"
#include "package_index.hpp"

namespace dlready::test {
namespace {

namespace fs = std::filesystem;

// The host's python3 as X.Y, or "" (the tests skip without one that can make a venv).
std::string host_python() {
  auto v = command_output("python3 -c 'import sys, venv, ensurepip; print(\"%d.%d\" % sys.version_info[:2])' 2>/dev/null");
  while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.pop_back();
  return v;
}

// download.pytorch.org's layout: one index per CUDA variant.
struct TorchIndex : PackageIndex {
  explicit TorchIndex(const std::string& dir)
      : PackageIndex(dir, {"2.11.0+cpu", "2.11.0+cu126", "2.11.0+cu130", "2.10.0+cu130"}) {}
};

struct Run {
  int status;
  std::string out;
};

Run setup(const std::string& args) {
  // PIP_RETRIES=0: a refused connection to the broken index fails at once instead of backing off.
  auto out = command_output("env PIP_RETRIES=0 " + std::string(DLREADY_BINARY) + " setup " + args + " 2>&1; echo rc=$?");
  auto at = out.rfind("rc=");
  return {std::atoi(out.c_str() + at + 3), out};
}

std::string dist_infos(const std::string& env, const std::string& python) {
  std::string out;
  fs::path site = fs::path(env) / "lib" / ("python" + python) / "site-packages";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(site, ec))
    if (e.path().extension() == ".dist-info") out += e.path().filename().string() + " ";
  return out;
}

TEST(SetupInstall, CreatesTheEnvironmentOnceAndLeavesARightOneAlone) {
  std::string py = host_python();
  if (py.empty()) GTEST_SKIP() << "no python3 with venv and ensurepip here";
  Fixture work, cpu_machine;
  add_base_system(cpu_machine);
  TorchIndex index(work.root);
  std::string env = work.root + "/env";
  std::string common = " --python " + py + " --torch 2.11 --tool pip --no-verify --torch-index " + index.url();
  auto first = setup(env + " --root " + cpu_machine.root + common);
  EXPECT_EQ(first.status, 0) << first.out;
  EXPECT_NE(first.out.find("plan: torch==2.11.* (cpu)"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("installed torch 2.11.0+cpu"), std::string::npos) << first.out;
  // Issue 35, item 7: the installer's own lines are shown as they come, before the result.
  auto streamed = first.out.find("    | Successfully installed torch-2.11.0+cpu");
  EXPECT_NE(streamed, std::string::npos) << first.out;
  EXPECT_LT(streamed, first.out.find("installed torch 2.11.0+cpu\n")) << first.out;
  EXPECT_TRUE(fs::exists(env + "/pyvenv.cfg"));
  EXPECT_NE(dist_infos(env, py).find("torch-2.11.0+cpu.dist-info"), std::string::npos) << dist_infos(env, py);
  auto cfg_time = fs::last_write_time(env + "/pyvenv.cfg");
  auto before = dist_infos(env, py);
  auto again = setup(env + " --root " + cpu_machine.root + common);
  EXPECT_EQ(again.status, 0) << again.out;
  EXPECT_NE(again.out.find("already holds torch 2.11.0+cpu: nothing to install"), std::string::npos) << again.out;
  EXPECT_EQ(dist_infos(env, py), before);
  EXPECT_EQ(fs::last_write_time(env + "/pyvenv.cfg"), cfg_time);
  // A broken index (and, --offline, no other read that could serve the build): the existing environment
  // is left as it was, a new one is removed.
  auto broken = setup(env + " --root " + cpu_machine.root + " --python " + py +
                      " --torch 2.10 --tool pip --no-verify --offline --torch-index http://127.0.0.1:1/");
  EXPECT_EQ(broken.status, 1) << broken.out;
  EXPECT_NE(broken.out.find("resolve (pip) failed"), std::string::npos) << broken.out;
  EXPECT_NE(broken.out.find("left as it was"), std::string::npos) << broken.out;
  EXPECT_EQ(dist_infos(env, py), before);
  auto fresh = setup(work.root + "/fresh --root " + cpu_machine.root + " --python " + py +
                     " --torch 2.11 --tool pip --no-verify --offline --torch-index http://127.0.0.1:1/");
  EXPECT_EQ(fresh.status, 1) << fresh.out;
  EXPECT_NE(fresh.out.find("install (pip) failed"), std::string::npos) << fresh.out;
  EXPECT_NE(fresh.out.find("No matching distribution"), std::string::npos) << "the tool's lines\n" << fresh.out;
  // Which index could not be reached, and the flags that point the install at a mirror.
  EXPECT_NE(fresh.out.find("could not reach http://127.0.0.1:1/cpu (Connection refused)"), std::string::npos) << fresh.out;
  EXPECT_NE(fresh.out.find("--torch-index URL (a mirror of https://download.pytorch.org/whl/, with cpu/ under it)"),
            std::string::npos) << fresh.out;
  EXPECT_NE(fresh.out.find("PyPI's default build (cu130) runs on the CPU too: --index-url https://pypi.org/simple"),
            std::string::npos) << "the fallback that works (issue 50, item 4)\n" << fresh.out;
  EXPECT_FALSE(fs::exists(work.root + "/fresh")) << "created by the failed run: removed";
  // An empty folder the user made beforehand stays (emptied of what the run put there).
  fs::create_directories(work.root + "/mine");
  auto mine = setup(work.root + "/mine --root " + cpu_machine.root + " --python " + py +
                    " --torch 2.11 --tool pip --no-verify --offline --torch-index http://127.0.0.1:1/");
  EXPECT_EQ(mine.status, 1) << mine.out;
  EXPECT_TRUE(fs::is_directory(work.root + "/mine")) << mine.out;
  EXPECT_TRUE(fs::is_empty(work.root + "/mine")) << mine.out;
  EXPECT_EQ(mine.out.find("(this run created it)"), std::string::npos) << mine.out;
}

// Whether a process is gone (or only a zombie left for init to reap: it runs no more).
bool process_ended(pid_t pid) {
  std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
  auto close = stat.rfind(')');
  return stat.empty() || (close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z');
}

// Issue 62, item 1: Ctrl-C during setup ends the program it runs and everything that started (in
// its own process group, which a terminal's Ctrl-C misses), removes the half-made environment and
// says so in one line; exit 130.
TEST(SetupInstall, CtrlCEndsTheInstallerAndWhatItStartedAndRemovesTheHalfMadeEnvironment) {
  Fixture work, cpu_machine;
  add_base_system(cpu_machine);
  // A python3.11 whose `-m venv ENV` makes half the folder, starts a helper that ignores SIGINT (a
  // background job of sh) and waits.
  work.write("/bin/python3.11", "#!/bin/sh\nmkdir -p \"$3\" && touch \"$3/half-made\"\nsleep 300 &\necho $! > " + work.root +
                                    "/helper.pid\nsleep 300\n", 0755);
  const std::string env = work.root + "/env";
  pid_t dlready = start_in_background("env PATH=" + work.root + "/bin:$PATH " + std::string(DLREADY_BINARY) + " setup " + env +
                                          " --root " + cpu_machine.root + " --python 3.11 --torch 2.11 --tool pip --no-verify"
                                          " --offline --torch-index http://127.0.0.1:1/",
                                      work.root + "/out.txt");
  std::string helper;
  for (int i = 0; i < 150 && helper.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    helper = read_text(work.root + "/helper.pid");
  }
  ASSERT_FALSE(helper.empty()) << read_text(work.root + "/out.txt");
  ::kill(dlready, SIGINT);
  EXPECT_EQ(wait_exit(dlready, 20), 130) << read_text(work.root + "/out.txt");
  const std::string out = read_text(work.root + "/out.txt");
  EXPECT_NE(out.find("interrupted during create: stopped it and everything it started"), std::string::npos) << out;
  EXPECT_NE(out.find("removed " + env + " (this run created it)"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(env)) << out;
  const pid_t helper_pid = std::atoi(helper.c_str());
  for (int i = 0; i < 50 && !process_ended(helper_pid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_TRUE(process_ended(helper_pid)) << "the installer's helper outlived dlready";
  if (!process_ended(helper_pid)) ::kill(helper_pid, SIGKILL);
}

TEST(SetupInstall, AGpuMachineGetsTheVariantWithItsKernels) {
  std::string py = host_python();
  if (py.empty()) GTEST_SKIP() << "no python3 with venv and ensurepip here";
  Fixture work, gpu_machine;
  healthy_gpu_machine(gpu_machine);  // driver 580.65.06, an H100 (sm_90)
  TorchIndex index(work.root);
  std::string env = work.root + "/env";
  auto r = setup(env + " --root " + gpu_machine.root + " --python " + py +
                 " --torch 2.11 --tool pip --no-verify --torch-index " + index.url());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("plan: torch==2.11.* (cu130)"), std::string::npos) << r.out;
  EXPECT_NE(dist_infos(env, py).find("torch-2.11.0+cu130.dist-info"), std::string::npos) << dist_infos(env, py);
}

TEST(SetupInstall, NeverASystemPythonOrAFolderThatIsNoEnvironment) {
  Fixture work, cpu_machine;
  add_base_system(cpu_machine);
  work.write("/stuff/notes.txt", "mine\n");
  auto r = setup(work.root + "/stuff --root " + cpu_machine.root + " --python 3.11 --torch-index http://127.0.0.1:1/");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("is not a virtual environment (no pyvenv.cfg) and not empty"), std::string::npos) << r.out;
  EXPECT_EQ(read_text(work.root + "/stuff/notes.txt"), "mine\n");
  auto usr = setup("/usr --root " + cpu_machine.root + " --python 3.11 --torch-index http://127.0.0.1:1/");
  EXPECT_EQ(usr.status, 2) << usr.out;
  EXPECT_NE(usr.out.find("never installs into a system Python"), std::string::npos) << usr.out;
  work.write("/other/pyvenv.cfg", "home = /usr/bin\nversion = 3.9.2\n");
  auto other = setup(work.root + "/other --root " + cpu_machine.root + " --python 3.11 --torch-index http://127.0.0.1:1/");
  EXPECT_EQ(other.status, 2) << other.out;
  EXPECT_NE(other.out.find("a virtual environment of Python 3.9.2, not 3.11"), std::string::npos) << other.out;
  // A pyvenv.cfg that is a FIFO is refused at once, not read forever.
  work.mkdir("/fifo");
  ASSERT_EQ(::mkfifo((work.root + "/fifo/pyvenv.cfg").c_str(), 0600), 0);
  auto fifo = setup(work.root + "/fifo --root " + cpu_machine.root + " --python 3.11 --torch-index http://127.0.0.1:1/");
  EXPECT_EQ(fifo.status, 2) << fifo.out;
  EXPECT_NE(fifo.out.find("pyvenv.cfg"), std::string::npos) << fifo.out;
}

// --tool uv (auto picks it when it is on PATH): uv makes the environment and installs; into an
// existing one it resolves first. uv comes from the pinned venv (scripts/setup.sh installs it).
TEST(SetupInstall, UvMakesAndFillsTheEnvironment) {
  std::string py = host_python();
  if (py.empty()) GTEST_SKIP() << "no python3 with venv and ensurepip here";
  if (!fs::exists(DLREADY_UV)) GTEST_SKIP() << "no uv at " << DLREADY_UV << " (scripts/setup.sh installs it)";
  Fixture work, cpu_machine;
  add_base_system(cpu_machine);
  TorchIndex index(work.root);
  std::string env = work.root + "/env", path = "PATH=" + fs::path(DLREADY_UV).parent_path().string() + ":$PATH ";
  std::string common = " --root " + cpu_machine.root + " --python " + py + " --no-verify --torch-index " + index.url();
  auto with_uv = [&](const std::string& args) {
    return command_output("env " + path + DLREADY_BINARY + " setup " + args + " 2>&1; echo rc=$?");
  };
  auto first = with_uv(env + common + " --torch 2.11 --tool uv");
  EXPECT_NE(first.find("rc=0"), std::string::npos) << first;
  EXPECT_NE(first.find("tool uv"), std::string::npos) << first;
  EXPECT_NE(first.find("create: uv venv --python " + py), std::string::npos) << first;
  EXPECT_NE(dist_infos(env, py).find("torch-2.11.0+cpu.dist-info"), std::string::npos) << dist_infos(env, py);
  // auto, with uv on PATH, into the existing environment: another release, resolved first.
  auto before = dist_infos(env, py);
  auto out = with_uv(env + common + " --torch 2.10");
  EXPECT_NE(out.find("tool uv"), std::string::npos) << out;
  EXPECT_NE(out.find("resolve: uv pip install"), std::string::npos) << out;
  EXPECT_NE(out.find("resolve (uv) failed"), std::string::npos) << "the test index has no 2.10 cpu build\n" << out;
  EXPECT_NE(out.find("rc=1"), std::string::npos) << out;
  EXPECT_EQ(dist_infos(env, py), before);
}

// --conda NAME: environment.yml for the plan, then conda (a stand-in here that records its
// arguments) creates the environment; without conda on PATH, the file and how to use it.
TEST(SetupInstall, CondaGetsAnEnvironmentFileAndTheCommand) {
  Fixture work, gpu_machine;
  healthy_gpu_machine(gpu_machine);
  work.write("/bin/conda", "#!/bin/sh\necho \"$@\" >> \"$FAKE_CONDA_LOG\"\n", 0755);
  std::string in_dir = "cd " + work.root + " && env FAKE_CONDA_LOG=" + work.root + "/conda.log ";
  std::string args = " setup --conda torch-env --python 3.11 --torch 2.11 --no-verify --offline --root " + gpu_machine.root;
  auto with = command_output(in_dir + "PATH=" + work.root + "/bin:/usr/bin:/bin " + DLREADY_BINARY + args +
                             " 2>&1; echo rc=$?");
  EXPECT_NE(with.find("rc=0"), std::string::npos) << with;
  auto yml = read_text(work.root + "/environment.yml");
  EXPECT_NE(yml.find("name: torch-env\n"), std::string::npos) << yml;
  EXPECT_NE(yml.find("  - python=3.11\n"), std::string::npos) << yml;
  EXPECT_NE(yml.find("    - --index-url https://download.pytorch.org/whl/cu130\n    - torch==2.11.*\n"), std::string::npos)
      << yml;
  EXPECT_EQ(read_text(work.root + "/conda.log"), "env update --name torch-env --file environment.yml\n");
  work.remove("/bin/conda");
  auto without = command_output(in_dir + "PATH=/usr/bin:/bin " + DLREADY_BINARY + args + " 2>&1; echo rc=$?");
  EXPECT_NE(without.find("no conda or mamba on PATH: conda env create -f environment.yml"), std::string::npos) << without;
  EXPECT_NE(without.find("rc=0"), std::string::npos) << without;
  work.write("/environment.yml", "name: someone-elses\n");
  auto theirs = command_output(in_dir + DLREADY_BINARY + args + " 2>&1; echo rc=$?");
  EXPECT_NE(theirs.find("exists and is not dlready's"), std::string::npos) << theirs;
  EXPECT_EQ(read_text(work.root + "/environment.yml"), "name: someone-elses\n");
}

// Issue 62, item 9: `setup --conda NAME --dry-run` showed the venv plan; it shows the commands the
// real run carries out: the very environment.yml it writes (run as printed, they write the same
// bytes), conda env update, the proof inside the environment. A bad name is refused in the dry run too.
TEST(SetupInstall, CondaDryRunShowsTheEnvironmentFileTheInstallWrites) {
  Fixture work, gpu_machine;
  healthy_gpu_machine(gpu_machine);
  std::string in_dir = "cd " + work.root + " && env PATH=/usr/bin:/bin ";
  std::string args = " setup --conda torch-env --python 3.11 --torch 2.11 --no-verify --offline --root " + gpu_machine.root;
  auto dry = run_command(in_dir + DLREADY_BINARY + args + " --dry-run 2>&1");
  ASSERT_EQ(dry.status, 0) << dry.out;
  EXPECT_EQ(dry.out.find("-m venv"), std::string::npos) << dry.out;
  EXPECT_FALSE(path_exists(work.root + "/environment.yml")) << "a dry run writes nothing";
  EXPECT_NE(dry.out.find("conda env update --name torch-env --file environment.yml"), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("conda run --name torch-env python -c 'import torch;"), std::string::npos) << dry.out;
  auto from = dry.out.find("cat > environment.yml <<'EOF'\n"), to = dry.out.find("\nEOF\n", from);
  ASSERT_NE(to, std::string::npos) << dry.out;
  Fixture copy;
  ASSERT_EQ(run_command("cd " + copy.root + " && sh -c " + shell_quote(dry.out.substr(from, to + 5 - from))).status, 0);
  ASSERT_EQ(run_command(in_dir + DLREADY_BINARY + args + " 2>&1").status, 0);
  EXPECT_EQ(read_text(copy.root + "/environment.yml"), read_text(work.root + "/environment.yml"));
  auto bad = run_command(in_dir + DLREADY_BINARY + " setup --conda 'a b' --dry-run --python 3.11 --offline --root " +
                         gpu_machine.root + " 2>&1");
  EXPECT_EQ(bad.status, 2) << bad.out;
  EXPECT_NE(bad.out.find("a conda environment name is letters"), std::string::npos) << bad.out;
}

}  // namespace
}  // namespace dlready::test
