// `dlready setup`'s plan (label "unit"): which release, CUDA variant and index fit a machine, from
// the project's compatibility tables; and the CLI's planning for another machine.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "binfmt/fatbin_reader.hpp"
#include "compat/compat.hpp"
#include "core/text.hpp"
#include "fixture.hpp"
#include "os/posix_fs.hpp"
#include "package_index.hpp"
#include "planner/install_plan.hpp"
#include "setup/plan_inputs.hpp"

namespace dlready::test {
namespace {

PlanMachine gpu_machine(const std::string& driver, std::vector<std::pair<int, int>> gpus, const std::string& python = "3.11") {
  PlanMachine m;
  m.driver = driver, m.gpus = std::move(gpus), m.python = python;
  return m;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

std::string all(const InstallPlan& p) { return p.error + "\n" + join_lines(p.why) + join_lines(p.warnings); }

TEST(SetupPlan, ANewDriverAndAHopperGpuGetTheNewestReleaseAndCuda) {
  auto p = plan_install(gpu_machine("595.45.04", {{9, 0}}));
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.release, newest_torch_release());
  EXPECT_EQ(p.variant, "cu132") << all(p);
  EXPECT_EQ(p.index_url, "https://download.pytorch.org/whl/cu132");
  EXPECT_EQ(p.requirement, "torch==" + p.release + ".*");
}

TEST(SetupPlan, ADriverTooOldForTheNewestCudaGetsAnOlderVariantOrRelease) {
  // R535 runs CUDA 12.x (minor-version compatibility), not 13: the newest release's cu126.
  auto p = plan_install(gpu_machine("535.104.05", {{8, 0}}));
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.variant, "cu126") << all(p);
  EXPECT_NE(all(p).find("minor-version compatibility"), std::string::npos) << all(p);
  // R470 (CUDA 11.4) runs no 12.x build: the newest release with a cu11x variant.
  auto old = plan_install(gpu_machine("470.82.01", {{8, 0}}, "3.10"));
  ASSERT_TRUE(old.ok) << old.error;
  EXPECT_EQ(old.variant, "cu118") << all(old);
  EXPECT_EQ(old.release, "2.7") << all(old);
  EXPECT_NE(all(old).find("the newest that fits"), std::string::npos) << all(old);
}

TEST(SetupPlan, PascalGetsAVariantThatStillHasItsKernels) {
  auto p = plan_install(gpu_machine("580.65.06", {{6, 1}}));
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_TRUE(arch_list_covers(*known_arch_list(p.release + ".0", p.cuda), 6, 1)) << all(p);
  EXPECT_EQ(p.variant, "cu126") << "cu130 and cu132 dropped sm_5x/6x/7.0\n" << all(p);
}

TEST(SetupPlan, BlackwellGetsAVariantWithItsKernels) {
  auto p = plan_install(gpu_machine("570.86.10", {{12, 0}}, "3.12"));
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.release, "2.11") << "2.12-2.14 have no cu128 and the driver runs no 13.x\n" << all(p);
  EXPECT_EQ(p.variant, "cu128") << all(p);
}

TEST(SetupPlan, MixedGpusGetOneBuildForBothOrAClearNo) {
  auto both = plan_install(gpu_machine("580.65.06", {{6, 1}, {9, 0}}));
  ASSERT_TRUE(both.ok) << both.error;
  EXPECT_EQ(both.variant, "cu126") << all(both);
  auto none = plan_install(gpu_machine("580.65.06", {{6, 1}, {12, 0}}));
  ASSERT_FALSE(none.ok);
  EXPECT_NE(none.error.find("no single build fits them all"), std::string::npos) << none.error;
  EXPECT_NE(none.error.find("sm_61 alone: "), std::string::npos) << none.error;
  EXPECT_NE(none.error.find("sm_120 alone: "), std::string::npos) << none.error;
}

TEST(SetupPlan, ACpuOnlyMachineGetsTheCpuBuild) {
  PlanMachine m;
  m.python = "3.12";
  auto p = plan_install(m);
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.variant, "cpu");
  EXPECT_EQ(p.index_url, "https://download.pytorch.org/whl/cpu");
}

TEST(SetupPlan, PythonVersionsRuleReleasesOut) {
  PlanMachine m;
  m.python = "3.8";
  auto p = plan_install(m);
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.release, "2.4") << "the last release with 3.8 wheels\n" << all(p);
  m.python = "3.5";
  auto none = plan_install(m);
  EXPECT_FALSE(none.ok);
  EXPECT_NE(none.error.find("has wheels for Python 3.5"), std::string::npos) << none.error;
}

TEST(SetupPlan, ARequestedReleaseOrVersionIsKeptOrRefused) {
  auto m = gpu_machine("580.65.06", {{9, 0}});
  m.torch = "2.5.1";
  auto p = plan_install(m);
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.release, "2.5");
  EXPECT_EQ(p.variant, "cu124");
  EXPECT_EQ(p.requirement, "torch==2.5.1");
  m.torch = "1.2";
  EXPECT_NE(plan_install(m).error.find("not in dlready's tables"), std::string::npos);
}

// Issue 61 item 1: a build the driver runs natively before one it runs only through CUDA's
// minor-version compatibility. Driver 580.65.06 is CUDA 13.0's: 2.15 has only cu132 (13.2), so
// 2.14's cu130 is planned, and why; asked for 2.14, its own cu130 (not its cu132); asked for 2.15,
// its cu132 with the limits said in the plan and in its JSON; a driver of CUDA 12.2 has no native
// build within a release of the newest, so the newest runs through minor-version compatibility.
TEST(SetupPlan, ANativeBuildComesBeforeMinorVersionCompatibility) {
  auto native = plan_install(gpu_machine("580.65.06", {{9, 0}}));
  EXPECT_EQ(native.release + " " + native.variant + " " + native.compatibility, "2.14 cu130 direct")
      << all(native);
  EXPECT_NE(all(native).find(
                "2.15's cu132 runs on driver 580.65.06 only through minor-version compatibility"),
            std::string::npos)
      << all(native);
  EXPECT_TRUE(native.warnings.empty()) << all(native);
  auto m = gpu_machine("580.65.06", {{9, 0}});
  m.torch = "2.14";
  EXPECT_EQ(plan_install(m).variant, "cu130") << all(plan_install(m));
  m.torch = "2.15";
  auto minor = plan_install(m);
  EXPECT_EQ(minor.variant + " " + minor.compatibility, "cu132 minor") << all(minor);
  ASSERT_EQ(minor.warnings.size(), 1u) << all(minor);
  EXPECT_NE(minor.warnings[0].find(
                "runs only through minor-version compatibility: no JIT of PTX newer than 13.0"),
            std::string::npos)
      << minor.warnings[0];
  EXPECT_NE(minor.warnings[0].find("an R595 driver or newer runs it natively"), std::string::npos)
      << minor.warnings[0];
  auto older = plan_install(gpu_machine("535.104.05", {{8, 0}}, "3.12"));
  EXPECT_EQ(older.compatibility, "minor") << all(older);
  EXPECT_EQ(older.release, "2.14") << "not ten releases back for a native cu121: " << all(older);
  auto json =
      nlohmann::json::parse(command_output(std::string(DLREADY_BINARY) +
                                           " setup --dry-run --json --offline --gpu H100 --driver "
                                           "580.65.06 --python 3.12 --torch 2.15"));
  EXPECT_EQ(json["compatibility"], "minor") << json.dump(1);
}

// Issue 61 item 4: every build graded for the machine, as torch-check's users have them: for one
// given by flags, the plan marked, minor-version compatibility graded as such, and with --all the
// builds that do not run here with why; the same as JSON.
// Issue 61, item 4: --why BUILD, check by check, for a machine given by flags and for this one (a
// fixture root); --json; exit 1 when the build does not run, 2 for no build.
TEST(SetupCli, WhyChecksOneBuildCheckByCheck) {
  const std::string flags = " --offline --gpu 'RTX 5090' --driver 570.86.10 --python 3.12";
  auto old = run_command(std::string(DLREADY_BINARY) + " setup --why torch==2.7.1+cu126" + flags + " 2>&1");
  EXPECT_EQ(old.status, 1) << old.out;
  EXPECT_NE(old.out.find("2.7 cu126: incompatible (the plan is "), std::string::npos) << old.out;
  EXPECT_NE(old.out.find("[fails]         kernels  no kernels for sm_120"), std::string::npos) << old.out;
  EXPECT_NE(old.out.find("[ok]            python   wheels for Python 3.12"), std::string::npos) << old.out;
  EXPECT_NE(old.out.find("[not checked]   index"), std::string::npos) << old.out;
  auto minor = run_command(std::string(DLREADY_BINARY) + " setup --why 2.15+cu132 --offline --gpu H100 --driver 580.65.06 "
                           "--python 3.12 --json 2>&1");
  EXPECT_EQ(minor.status, 0) << minor.out;
  auto j = nlohmann::json::parse(minor.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << minor.out;
  EXPECT_EQ(j["schema"], "dlready.setup-why/1");
  EXPECT_EQ(j["builds"][0]["status"], "minor");
  EXPECT_EQ(j["builds"][0]["checks"][3]["check"], "driver");
  EXPECT_EQ(j["builds"][0]["checks"][3]["verdict"], "minor");
  auto every = run_command(std::string(DLREADY_BINARY) + " setup --why 2.11" + flags + " 2>&1");
  EXPECT_NE(every.out.find("2.11 cu128: direct (the plan)"), std::string::npos) << every.out;
  EXPECT_NE(every.out.find("2.11 cu126: incompatible"), std::string::npos) << "each variant of the release\n" << every.out;
  EXPECT_EQ(run_command(std::string(DLREADY_BINARY) + " setup --why 'torch==2.x'" + flags + " 2>&1").status, 2);
  EXPECT_NE(run_command(std::string(DLREADY_BINARY) + " setup --why 0.3" + flags + " 2>&1").out.find("in neither dlready's tables"),
            std::string::npos);
  // This machine: a fixture root's GPU and driver.
  Fixture f;
  healthy_gpu_machine(f);
  auto here = run_command("env -i PATH=/usr/bin:/bin HOME=/home/alice " + std::string(DLREADY_BINARY) +
                          " setup --why 2.11+cu130 --offline --python 3.11 --load-root-drivers --root " + f.root + " 2>&1");
  EXPECT_EQ(here.status, 0) << here.out;
  EXPECT_NE(here.out.find("driver 580.65.06 runs CUDA 13.0 natively"), std::string::npos) << here.out;
  EXPECT_NE(here.out.find("kernels for sm_90"), std::string::npos) << here.out;
}

TEST(SetupCli, CandidatesGradeEveryBuildForTheMachine) {
  const std::string setup =
      std::string(DLREADY_BINARY) +
      " setup --offline --gpu H100 --driver 580.65.06 --python 3.12 --candidates";
  auto text = run_command(setup);
  EXPECT_EQ(text.status, 0) << text.out;
  EXPECT_NE(text.out.find("* 2.14    cu130   direct"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  2.15    cu132   minor         CUDA 13.2 on a driver for CUDA 13.0"),
            std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("incompatible"), std::string::npos)
      << "only what runs here without --all: " << text.out;
  EXPECT_NE(text.out.find("--all lists them with why"), std::string::npos) << text.out;
  auto all = run_command(setup + " --all");
  EXPECT_NE(all.out.find("  2.1     cu121   incompatible  no wheel for Python 3.12 (3.8 to 3.11)"),
            std::string::npos)
      << all.out;
  auto j = nlohmann::json::parse(run_command(setup + " --json").out);
  EXPECT_EQ(j["schema"], "dlready.setup-candidates/1");
  int chosen = 0;
  for (const auto& c : j["candidates"]) {
    chosen += c["chosen"].get<bool>();
    if (c["chosen"].get<bool>()) {
      EXPECT_EQ(c["release"].get<std::string>() + " " + c["variant"].get<std::string>(),
                "2.14 cu130");
    }
  }
  EXPECT_EQ(chosen, 1) << j.dump(1);
  auto kepler = run_command(
      std::string(DLREADY_BINARY) +
      " setup --offline --gpu sm_37 --driver 470.82.01 --python 3.8 --candidates --all");
  EXPECT_NE(kepler.out.find("  2.4     cu124   incompatible  needs driver >= 525.60.13"),
            std::string::npos)
      << kepler.out;
  EXPECT_NE(kepler.out.find("* 2.4     cu118   minor         CUDA 11.8 on a driver for CUDA 11.4"),
            std::string::npos)
      << kepler.out;
}

TEST(SetupPlan, APypiMirrorServesOnlyTheDefaultVariant) {
  auto m = gpu_machine("580.65.06", {{9, 0}});
  m.torch = "2.11";
  m.index_url = "https://pypi.tuna.tsinghua.edu.cn/simple";
  auto p = plan_install(m);  // 2.11's newest variant, cu130, is also PyPI's default
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.variant, "cu130");
  EXPECT_EQ(p.index_url, m.index_url) << all(p);
  m.driver = "550.54.15";  // CUDA 12.x only: cu128, which PyPI does not have
  auto q = plan_install(m);
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.variant, "cu128");
  EXPECT_EQ(q.index_url, "https://download.pytorch.org/whl/cu128");
  ASSERT_EQ(q.warnings.size(), 2u)
      << "the mirror's, and cu128 on a driver of CUDA 12.4: " << all(q);
  EXPECT_NE(q.warnings[1].find("PyPI has only 2.11's default build (cu130), not cu128"),
            std::string::npos)
      << q.warnings[1];
}

TEST(SetupPlan, AnExtraIndexIsNamedAsARiskToThePlannedVariant) {
  auto m = gpu_machine("580.65.06", {{9, 0}});
  m.extra_index_url = "https://pypi.org/simple";
  auto p = plan_install(m);
  ASSERT_TRUE(p.ok) << p.error;
  ASSERT_EQ(p.warnings.size(), 1u) << all(p);
  EXPECT_NE(p.warnings[0].find("PIP_EXTRA_INDEX_URL"), std::string::npos) << p.warnings[0];
}

// Issue 34, item 3: the tables follow what PyPI publishes (2.15 with Python 3.11-3.15; 2.13/2.14
// stop at 3.14), and a driver newer than a GPU's last branch is no machine to plan for.
TEST(SetupPlan, TheTablesFollowThePublishedWheelsAndTheDriverBranches) {
  PlanMachine cpu;
  cpu.python = "3.13";
  auto p = plan_install(cpu);
  EXPECT_EQ(p.release, "2.15") << all(p);
  cpu.python = "3.15";
  p = plan_install(cpu);
  EXPECT_EQ(p.release, "2.15") << "2.14 has no cp315 wheel\n" << all(p);
  cpu.python = "3.10";
  p = plan_install(cpu);
  EXPECT_EQ(p.release, "2.14") << "2.15 starts at 3.11\n" << all(p);
  cpu.python = "3.11", cpu.torch = "2.15";
  EXPECT_TRUE(plan_install(cpu).ok) << all(plan_install(cpu));
  // PyPI's cp312 wheels of 2.2 and 2.3 and cp313 wheels of 2.5 exist (data/pytorch_python.tsv cites
  // them).
  for (const auto& [torch, python] : std::vector<std::pair<std::string, std::string>>{
           {"2.2", "3.12"}, {"2.3", "3.12"}, {"2.5", "3.13"}}) {
    cpu.python = python, cpu.torch = torch;
    EXPECT_TRUE(plan_install(cpu).ok) << torch << " on Python " << python << "\n"
                                      << all(plan_install(cpu));
  }
  cpu.torch = "";
  auto hopper = plan_install(gpu_machine("595.45.04", {{9, 0}}));
  EXPECT_EQ(hopper.release + " " + hopper.variant, "2.15 cu132") << all(hopper);
  auto kepler = plan_install(gpu_machine("580.65.06", {{3, 7}}));
  EXPECT_FALSE(kepler.ok);
  EXPECT_NE(kepler.error.find("driver 580.65.06 does not drive sm_37 (Kepler): R470 is the last driver branch"),
            std::string::npos) << all(kepler);
  EXPECT_TRUE(plan_install(gpu_machine("470.82.01", {{3, 7}}, "3.8")).error.find("Kepler") == std::string::npos);
  auto pascal = plan_install(gpu_machine("590.48.01", {{6, 1}}));
  EXPECT_NE(pascal.error.find("R580 is the last driver branch"), std::string::npos) << all(pascal);
  EXPECT_TRUE(plan_install(gpu_machine("580.65.06", {{6, 1}})).ok);
  // Issue 61 item 2: a driver older than the GPU's architecture (data/driver_arch.tsv's first
  // branch).
  auto ada = plan_install(gpu_machine("470.82.01", {{8, 9}}, "3.8"));
  EXPECT_FALSE(ada.ok) << all(ada);
  EXPECT_NE(
      ada.error.find(
          "driver 470.82.01 does not drive sm_89 (Ada): its GPUs need an R520 driver or newer"),
      std::string::npos)
      << all(ada);
  for (const auto& driver : {"525.60.13", "550.54.15", "560.35.03"}) {
    auto rtx5090 = plan_install(gpu_machine(driver, {{12, 0}}));
    EXPECT_NE(rtx5090.error.find("need an R570 driver or newer"), std::string::npos)
        << driver << ": " << all(rtx5090);
    auto b200 = plan_install(gpu_machine(driver, {{10, 0}}));
    EXPECT_NE(b200.error.find("need an R570 driver or newer"), std::string::npos)
        << driver << ": " << all(b200);
  }
  EXPECT_TRUE(plan_install(gpu_machine("570.86.16", {{12, 0}})).ok)
      << "the RTX 5090's launch driver";
  EXPECT_TRUE(plan_install(gpu_machine("520.61.05", {{8, 9}}, "3.10")).ok);
}

// Issue 61 item 3: a row cannot drift from its source where the suite holds the source. The wheel
// the suite installs (scripts/setup.sh's pinned torch) is read as the doctor reads files: its CUDA
// fat binaries give the architectures it carries (SASS, and the PTX a newer GPU JIT-compiles), its
// WHEEL file the Python it is for; the row of data/pytorch_cuda_arch.tsv and
// data/pytorch_python.tsv for that release and variant must say the same.
TEST(SetupPlan, TheTableRowsOfTheInstalledWheelSayWhatItsFilesHold) {
  const std::string site = std::string(DLREADY_VENV_DIR) + "/lib/python3.11/site-packages";
  if (!is_directory(site + "/torch")) GTEST_SKIP() << "no pinned venv (scripts/setup.sh)";
  std::string version = read_text(site + "/torch/version.py");
  auto q = version.find("__version__ = '");
  ASSERT_NE(q, std::string::npos);
  version = version.substr(q + 15, version.find('\'', q + 15) - q - 15);  // 2.11.0+cu130
  const std::string release = version.substr(0, version.rfind('.')),
                    variant = version.substr(version.find('+') + 1);
  RootFs fs("/");
  auto code = read_fatbin_archs(fs, site + "/torch/lib/libtorch_cuda.so");
  ASSERT_TRUE(code && !code->empty()) << "libtorch_cuda.so of " << version << " carries GPU code";
  const TorchVariant* row = nullptr;
  for (const auto& v : torch_variants())
    if (v.torch == release && v.variant == variant) row = &v;
  ASSERT_NE(row, nullptr) << release << " " << variant << " has a row";
  // The row is TORCH_CUDA_ARCH_LIST: each architecture it names is SASS in the library, and "+PTX"
  // says the last one's PTX is there too. (The library may carry more SASS than the list: CUDA 13's
  // family targets add sm_103 and sm_121, fp8 kernels sm_89; the list is what every kernel has.)
  std::string list = row->arch_list;
  const bool ptx = ends_with(list, "+PTX");
  if (ptx) list.resize(list.size() - 4);
  int last = 0;
  for (const auto& arch : split(list, ';')) {
    auto dot = arch.find('.');
    last = static_cast<int>(parse_int(arch.substr(0, dot)).value_or(0) * 10 +
                            parse_int(arch.substr(dot + 1)).value_or(0));
    EXPECT_TRUE(code->sass.count(last)) << release << " " << variant << "'s row names " << arch
                                        << "; the library has " << code->describe();
  }
  EXPECT_EQ(code->ptx.count(last) > 0, ptx)
      << release << " " << variant << "'s row says " << row->arch_list << "; the library has "
      << code->describe();
  auto range = python_range(release);
  ASSERT_TRUE(range);
  EXPECT_LE(compare_versions(range->min, "3.11"), 0) << "the suite's wheel is cp311";
  EXPECT_GE(compare_versions(range->max, "3.11"), 0) << "the suite's wheel is cp311";
}

TEST(SetupPlan, ComputeCapabilitiesAreReadInEveryUsualSpelling) {
  EXPECT_EQ(parse_compute_capability("sm_61"), (std::pair<int, int>{6, 1}));
  EXPECT_EQ(parse_compute_capability("8.6"), (std::pair<int, int>{8, 6}));
  EXPECT_EQ(parse_compute_capability("120"), (std::pair<int, int>{12, 0}));
  EXPECT_EQ(parse_compute_capability("SM90"), (std::pair<int, int>{9, 0}));
  for (const char* bad : {"", "x", "sm_", "9", "8.10", "-1.0"}) EXPECT_FALSE(parse_compute_capability(bad)) << bad;
}

TEST(SetupCli, PlansForAnotherMachineAsJsonAndRefusesBadFlags) {
  std::string bin = DLREADY_BINARY;
  auto out = command_output(bin + " setup --dry-run --json --driver 535.104.05 --gpu sm_61,sm_90 --python 3.11");
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["schema"], "dlready.setup-plan/1");
  EXPECT_TRUE(j["ok"].get<bool>());
  EXPECT_EQ(j["variant"], "cu126");
  EXPECT_EQ(j["machine"]["gpus"], nlohmann::json::array({"sm_61", "sm_90"}));
  EXPECT_EQ(j["commands"].size(), 4u);
  auto none = command_output(bin + " setup --dry-run --driver 580.65.06 --gpu sm_61,sm_120 --python 3.12; echo rc=$?");
  EXPECT_NE(none.find("no single build fits them all"), std::string::npos) << none;
  EXPECT_NE(none.find("rc=1"), std::string::npos) << none;
  for (const char* bad : {"--gpu sm_x --python 3.11", "--no-gpu --gpu sm_90", "--driver 550 --python 3.11",
                          "--no-gpu --python three", "--no-gpu --python 3.11 --index-url $'https://x\\n  - evil'",
                          "--no-gpu --python 3.11 --with 'torchvision torchaudio'"}) {
    auto r = command_output(bin + " setup --dry-run " + bad + " 2>&1; echo rc=$?");
    EXPECT_NE(r.find("rc=2"), std::string::npos) << bad << ": " << r;
    EXPECT_NE(r.find("dlready setup: "), std::string::npos) << bad << ": " << r;
  }
  // The commands it prints are quoted for the shell: a folder or package name is never run as code.
  auto quoted = command_output(bin + " setup --dry-run --no-gpu --python 3.11 '/tmp/x; rm -rf /tmp/y' "
                                     "--with 'torchvision;id' --with '$(id)' 2>&1");
  EXPECT_NE(quoted.find("python3.11 -m venv '/tmp/x; rm -rf /tmp/y'"), std::string::npos) << quoted;
  EXPECT_NE(quoted.find(" 'torchvision;id' '$(id)' --index-url"), std::string::npos) << quoted;
  auto newline = command_output(bin + " setup --dry-run --no-gpu --python 3.11 \"$(printf '/tmp/a\\nb')\" 2>&1; echo rc=$?");
  EXPECT_NE(newline.find("holds a control character"), std::string::npos) << newline;
  EXPECT_NE(newline.find("rc=2"), std::string::npos) << newline;
  auto plain = command_output(bin + " setup --no-gpu --python 3.11 2>&1; echo rc=$?");
  EXPECT_NE(plain.find("plan for another machine: add --dry-run"), std::string::npos) << plain;
  EXPECT_NE(plain.find("rc=2"), std::string::npos) << plain;
}

// Issue 58 item 3: one check of setup's flag values for every platform (Linux's setup_plan, the
// Mac's and Windows' front ends all call it): the values their quoted commands carry are accepted,
// the ones no command can carry are refused with the same line.
TEST(SetupPlan, OneFlagCheckForEveryPlatform) {
  for (const char* fine : {"torchvision", "torchvision;id", "$(id)", "a&b|c"})
    EXPECT_TRUE(check_plan_flags("3.12", {fine}, "here").ok()) << fine;
  for (const char* bad : {"torch vision", "a'b", "a\"b", "a`b", "a\\b", "a\nb", "a\x7f"})
    EXPECT_NE(check_plan_flags("3.12", {bad}, "here").error().find("has a space, a quote or a control character"), std::string::npos)
        << bad;
  EXPECT_NE(check_plan_flags("3.12", {}, "here", "https://x y").error().find("--index-url 'https://x y' has a space"), std::string::npos);
  EXPECT_TRUE(check_plan_flags("3.12", {}, "here", "https://pypi.org/simple").ok());
}

PlanMachine mac(const std::string& platform, const std::string& macos, const std::string& python) {
  PlanMachine m;
  m.platform = platform, m.macos = macos, m.python = python;
  return m;
}

TEST(SetupPlanMac, TheNewestTorchWhoseMpsRunsOnThisMacos) {
  auto p = plan_install(mac("macos-arm64", "15.1", "3.12"));
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.release, newest_torch_release());
  EXPECT_EQ(p.variant, "mps");
  EXPECT_EQ(p.index_url, "https://pypi.org/simple") << "never a CUDA index on a Mac";
  p = plan_install(mac("macos-arm64", "13.6", "3.12"));  // 2.9 and later need 14 for MPS; 2.12 and later to install
  EXPECT_EQ(p.release, "2.8") << all(p);
  EXPECT_EQ(p.variant, "mps");
  EXPECT_NE(all(p).find("2.11 installs too, but its MPS needs macOS 14.0"), std::string::npos) << all(p);
  EXPECT_EQ(plan_install(mac("macos-arm64", "12.5", "3.11")).release, "2.4");
  p = plan_install(mac("macos-arm64", "11.7", "3.10"));  // no MPS below 12.3: the newest that installs, on the CPU
  EXPECT_EQ(p.release, "2.11");
  EXPECT_EQ(p.variant, "cpu");
  p = plan_install(mac("macos-arm64", "13.6", "3.14"));  // 3.14's first torch (2.9) has no MPS on 13
  EXPECT_EQ(p.variant, "cpu");
  EXPECT_NE(all(p).find("torch 2.8 with Python 3.12"), std::string::npos) << all(p);
}

TEST(SetupPlanMac, AnIntelMacStopsAt222AndPython312) {
  auto p = plan_install(mac("macos-x86_64", "14.7", "3.12"));
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.requirement, "torch==2.2.*");
  EXPECT_EQ(p.variant, "cpu");
  p = plan_install(mac("macos-x86_64", "14.7", "3.13"));
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.error.find("Python 3.8 to 3.12"), std::string::npos) << p.error;
  auto asked = mac("macos-arm64", "13.6", "3.12");
  asked.torch = "2.12";
  EXPECT_NE(plan_install(asked).error.find("its wheels need macOS 14"), std::string::npos);
  asked.index_url = "https://download.pytorch.org/whl/cu124", asked.torch = "";
  p = plan_install(asked);
  EXPECT_EQ(p.index_url, "https://pypi.org/simple");
  EXPECT_NE(all(p).find("has no macOS wheels"), std::string::npos) << all(p);
}

TEST(SetupCli, TheDryRunRefusesWhatTheInstallRefuses) {
  // Issue 50, item 3: `setup --dry-run /usr` printed a plan into /usr and exited 0.
  std::string bin = DLREADY_BINARY;
  auto dry = run_command(bin + " setup --dry-run --offline --python 3.11 /usr 2>&1");
  EXPECT_EQ(dry.status, 2) << dry.out;
  EXPECT_NE(dry.out.find("dlready setup: /usr is not a virtual environment"), std::string::npos) << dry.out;
  EXPECT_EQ(dry.out.find("plan:"), std::string::npos) << "the refusal comes before any plan: " << dry.out;
  auto fresh = run_command(bin + " setup --dry-run --offline --python 3.11 /tmp/dlready-no-such-venv-42 2>&1");
  EXPECT_EQ(fresh.status, 0) << fresh.out;
}

TEST(SetupCli, PlansForAMacFromAnotherMachine) {
  std::string bin = DLREADY_BINARY;
  auto j = nlohmann::json::parse(command_output(bin + " setup --dry-run --json --platform macos-arm64 --macos 13.6 --python 3.12"));
  EXPECT_TRUE(j["ok"].get<bool>()) << j.dump(1);
  EXPECT_EQ(j["requirement"], "torch==2.8.*");
  EXPECT_EQ(j["machine"]["macos"], "13.6");
  EXPECT_NE(j["commands"][2].get<std::string>().find("torch.backends.mps.is_available()"), std::string::npos);
  for (const char* bad : {"--platform macos-arm64 --python 3.12", "--platform macos-arm64 --macos 14.5",
                          "--platform macos-arm64 --macos 14.5 --python 3.12 --gpu sm_90",
                          "--platform macos-arm64 --macos 'fourteen' --python 3.12", "--macos 14.5 --no-gpu --python 3.12"}) {
    auto r = command_output(bin + " setup --dry-run " + bad + " 2>&1; echo rc=$?");
    EXPECT_NE(r.find("rc=2"), std::string::npos) << bad << ": " << r;
    EXPECT_NE(r.find("dlready setup: "), std::string::npos) << bad << ": " << r;
  }
  auto install = command_output(bin + " setup --platform macos-arm64 --macos 14.5 --python 3.12 2>&1; echo rc=$?");
  EXPECT_NE(install.find("add --dry-run"), std::string::npos) << install;
}

// Issue 58 item 3: one planner for every platform. From Linux, a Windows machine given by flags gets
// Windows' driver floors and PowerShell's commands; a Windows machine's capture under --root (the
// wine laptop: an RTX 4060 Laptop GPU, driver 560.94, Python 3.12) is planned as the Windows build
// plans it, and never installed here.
TEST(SetupCli, PlansForAWindowsMachineFromLinuxByFlagsOrItsCapture) {
  std::string bin = DLREADY_BINARY;
  auto j = nlohmann::json::parse(command_output(
      bin + " setup --dry-run --json --offline --platform win-amd64 --gpu sm_89 --driver 527.41 --python 3.12"));
  EXPECT_EQ(j["machine"]["platform"], "win-amd64");
  EXPECT_EQ(j["variant"], "cu118") << "527.41 runs CUDA 12 on Linux's floor (525.60.13), not on Windows' (528.33)";
  EXPECT_EQ(j["commands"][0], "py -3.12 -m venv '.venv'");
  EXPECT_NE(j["commands"][1].get<std::string>().find("& '.venv\\Scripts\\python.exe' -m pip install 'torch=="),
            std::string::npos) << j.dump(1);
  Fixture f;
  ASSERT_EQ(std::system(("tar -xzf " + shell_quote(std::string(DLREADY_SOURCE_DIR) + "/tests/machines/wine-laptop-win10.tar.gz") +
                         " -C " + shell_quote(f.root)).c_str()), 0);
  auto plan = command_output(bin + " setup --dry-run --offline --root " + shell_quote(f.root) + " 2>&1; echo rc=$?");
  EXPECT_NE(plan.find("seen: cuda:0 NVIDIA GeForce RTX 4060 Laptop GPU: compute capability 8.9 (driver)"), std::string::npos) << plan;
  EXPECT_NE(plan.find(", win_amd64) from https://download.pytorch.org/whl/cu12"), std::string::npos) << plan;
  EXPECT_NE(plan.find("commands (PowerShell):\n    py -3.12 -m venv '.venv'"), std::string::npos) << plan;
  EXPECT_NE(plan.find("rc=0"), std::string::npos) << plan;
  auto install = command_output(bin + " setup --offline --root " + shell_quote(f.root) + " 2>&1; echo rc=$?");
  EXPECT_NE(install.find("dlready setup: the machine read is a Windows machine (win-amd64): add --dry-run"), std::string::npos)
      << install;
  EXPECT_NE(install.find("rc=2"), std::string::npos) << install;
  auto bad = command_output(bin + " setup --dry-run --platform freebsd-amd64 --no-gpu --python 3.12 2>&1; echo rc=$?");
  EXPECT_NE(bad.find("rc=2"), std::string::npos) << bad;
}

TEST(SetupCli, PlansForThisMachineFromItsFiles) {
  Fixture f;
  healthy_gpu_machine(f);
  auto out = command_output(std::string(DLREADY_BINARY) + " setup --dry-run --json --python 3.11 --root " + f.root);
  auto j = nlohmann::json::parse(out);
  EXPECT_TRUE(j["ok"].get<bool>()) << out;
  EXPECT_EQ(j["machine"]["gpus"], nlohmann::json::array({"sm_90"})) << out;
  EXPECT_EQ(j["machine"]["driver"], "580.65.06") << out;
  EXPECT_EQ(j["variant"], "cu130") << "the driver's own CUDA: " << out;
}

}  // namespace
}  // namespace dlready::test

namespace dlready::test {
namespace {

// `dlready setup` against a local index that serves a 2.16 the tables do not know (PyPI's page:
// cp311-cp314; PyTorch's: cu132 and cpu), 2.15 (PyPI: cp311-cp315; PyTorch's: cu130 only, for 3.11 and
// 3.12), and nothing of 2.14.
struct IndexedSetup {
  Fixture dir;
  PackageIndex index{dir.root + "/index",
                     {"pypi/torch==2.16.0:cp311,cp312,cp313,cp314", "whl/torch==2.16.0+cu132:cp311,cp312,cp313,cp314",
                      "whl/torch==2.16.0+cpu:cp311,cp312,cp313,cp314", "whl/torch==2.15.0+cu130:cp311,cp312",
                      "pypi/torch==2.15.0:cp311,cp312,cp313,cp314,cp315"}};
  std::string plan(const std::string& args, bool online = true) const {
    return command_output("env -u DLREADY_OFFLINE XDG_CACHE_HOME=" + dir.root + "/cache " + std::string(DLREADY_BINARY) +
                          " setup --dry-run " + args + " --index-url " + index.url() + "pypi/ --torch-index " +
                          index.url() + "whl/" + (online ? "" : " --offline") + " 2>&1; echo rc=$?");
  }
};

TEST(SetupIndex, PlansAReleaseNewerThanTheTablesFromWhatTheIndexServes) {
  IndexedSetup s;
  auto cpu = s.plan("--no-gpu --python 3.13");
  EXPECT_NE(cpu.find("plan: torch==2.16.* (cpu) from " + s.index.url() + "whl/cpu"), std::string::npos) << cpu;
  EXPECT_NE(cpu.find("2.16 is newer than dlready's tables (" + std::string(kCompatTableDate) + ")"), std::string::npos) << cpu;
  EXPECT_NE(cpu.find("index read: " + s.index.url() + "pypi/torch/"), std::string::npos) << cpu;
  auto gpu = s.plan("--driver 580.65.06 --gpu sm_90 --python 3.13");
  EXPECT_NE(gpu.find("plan: torch==2.16.* (cu132)"), std::string::npos) << gpu;
  EXPECT_NE(gpu.find("kernels: assumed from 2.15 cu132 (the tables do not know 2.16 yet)"), std::string::npos) << gpu;
  // Offline: the tables and their date.
  auto offline = s.plan("--no-gpu --python 3.13", false);
  EXPECT_NE(offline.find("plan: torch==2.15.*"), std::string::npos) << offline;
  EXPECT_NE(offline.find("index not read (--offline): planned from dlready's tables of " + std::string(kCompatTableDate)),
            std::string::npos) << offline;
}

TEST(SetupIndex, AVariantThePythonOrTheIndexLacksIsNotPlanned) {
  IndexedSetup s;
  // 2.16 has no wheel for 3.15: the newest release that has one.
  auto py315 = s.plan("--no-gpu --python 3.15");
  EXPECT_EQ(py315.find("torch==2.16"), std::string::npos) << py315;
  EXPECT_NE(py315.find("plan: torch==2.15.*"), std::string::npos) << py315;
  // 2.15 on the index: cu130 only (for 3.11 and 3.12), although the tables know cu132.
  auto v215 = s.plan("--driver 580.65.06 --gpu sm_90 --python 3.12 --torch 2.15");
  EXPECT_NE(v215.find("plan: torch==2.15.* (cu130)"), std::string::npos) << v215;
  auto v215_py313 = s.plan("--driver 580.65.06 --gpu sm_90 --python 3.13 --torch 2.15");
  EXPECT_NE(v215_py313.find("no plan"), std::string::npos) << v215_py313;
  EXPECT_NE(v215_py313.find("cu132 is not on the index"), std::string::npos) << v215_py313;
  EXPECT_NE(v215_py313.find("rc=1"), std::string::npos) << v215_py313;
}

// The doctor never goes to the network, but what `dlready setup` last read of the index is a fact
// it plans from: a release newer than its tables that fits the GPU comes first in its advice.
TEST(SetupIndex, TheDoctorRecommendsWhatSetupLastReadOfTheIndex) {
  IndexedSetup s;
  Fixture machine;
  healthy_gpu_machine(machine);  // an H100, driver 580.65.06, a Python 3.11 venv with torch
  auto before = command_output(std::string(DLREADY_BINARY) + " doctor --no-cache --json --root " + machine.root);
  EXPECT_EQ(before.find("is on the index"), std::string::npos);
  auto read = command_output("env -u DLREADY_OFFLINE XDG_CACHE_HOME=" + machine.root + "/cache " +
                             std::string(DLREADY_BINARY) + " setup --dry-run --no-gpu --python 3.11 --index-url " +
                             s.index.url() + "pypi/ --torch-index " + s.index.url() + "whl/ 2>&1");
  ASSERT_NE(read.find("torch==2.16.*"), std::string::npos) << read;
  auto j = nlohmann::json::parse(command_output("HOME=/home/alice XDG_CACHE_HOME=/cache " + std::string(DLREADY_BINARY) +
                                                " doctor --no-cache --json --root " + machine.root));
  ASSERT_FALSE(j["recommendations"].empty());
  EXPECT_EQ(j["recommendations"][0]["title"],
            "PyTorch 2.16 cu132 is on the index, newer than dlready's tables (" + std::string(kCompatTableDate) + ")");
  // Read under --root (another machine, or a capture made by a stranger), the summary says which
  // releases exist but never where to install from: the advice keeps PyTorch's own index and the
  // mirror is named as not used (on this machine itself, the mirror setup read is the advice's).
  EXPECT_EQ(j["recommendations"][0]["commands"][1], "pip install torch torchvision --index-url "
                                                    "https://download.pytorch.org/whl/cu132");
  EXPECT_NE(j["facts"]["torch_index"].dump().find("its mirror " + s.index.url() + "whl/ is not used"), std::string::npos)
      << j["facts"]["torch_index"];
  ASSERT_TRUE(j["facts"]["torch_index"].is_object());
  EXPECT_EQ(j["facts"]["torch_index"]["releases"][0]["version"], "2.16.0");
}

TEST(SetupIndex, TheIndexIsReadOnceADay) {
  IndexedSetup s;
  auto first = s.plan("--no-gpu --python 3.13");
  EXPECT_NE(first.find("torch==2.16.*"), std::string::npos) << first;
  auto cached = command_output("env -u DLREADY_OFFLINE XDG_CACHE_HOME=" + s.dir.root + "/cache " + std::string(DLREADY_BINARY) +
                               " setup --dry-run --no-gpu --python 3.13 --index-url " + s.index.url() +
                               "pypi/ --torch-index " + s.index.url() + "whl/ 2>&1");
  EXPECT_NE(cached.find("torch==2.16.*"), std::string::npos) << cached;
  EXPECT_NE(cached.find("(cached 0 h ago)"), std::string::npos) << cached;
}

}  // namespace
}  // namespace dlready::test

namespace dlready::test {
namespace {

// The Python `python3 -m venv` would be: the first python3 on PATH whose file names its version —
// a shim first (pyenv's script) says nothing, so the next one counts.
TEST(SetupCli, ThePythonOnPathLooksPastAShim) {
  Fixture f;
  f.write("/shims/python3", "#!/bin/sh\nexec python3.12 \"$@\"\n", 0755);
  f.write("/usr/bin/python3.12", "#!/bin/sh\nexit 0\n", 0755);
  f.link("/usr/bin/python3", "python3.12");
  auto out = command_output("env -u DLREADY_OFFLINE DLREADY_OFFLINE=1 PATH=" + f.host("/shims") + ":" + f.host("/usr/bin") +
                            " " + std::string(DLREADY_BINARY) + " setup --dry-run --no-gpu 2>&1");
  EXPECT_NE(out.find("python3.12 -m venv .venv"), std::string::npos) << out;
}

}  // namespace
}  // namespace dlready::test

namespace dlready::test {
namespace {

// Issue 50 item 4: PyTorch's index (here its mirror) does not answer while the PyPI mirror does.
// The plan used to install from the index it had just reported unreachable.
TEST(SetupIndex, AnIndexThatDidNotAnswerIsNotPlannedFromWhenAnotherServesTheBuild) {
  IndexedSetup s;
  auto plan = [&](const std::string& args) {
    return command_output("env -u DLREADY_OFFLINE XDG_CACHE_HOME=" + s.dir.root + "/cache " + std::string(DLREADY_BINARY) +
                          " setup --dry-run " + args + " --index-url " + s.index.url() +
                          "pypi/ --torch-index http://127.0.0.1:9/whl/ 2>&1; echo rc=$?");
  };
  auto cpu = plan("--no-gpu --python 3.12 --torch 2.15");
  EXPECT_NE(cpu.find("http://127.0.0.1:9/whl/torch/ (did not answer)"), std::string::npos) << cpu;
  EXPECT_NE(cpu.find("from " + s.index.url() + "pypi/"), std::string::npos) << cpu;
  EXPECT_EQ(cpu.find("--index-url http://127.0.0.1:9/"), std::string::npos) << "planned from what did not answer: " << cpu;
  auto gpu = plan("--driver 580.65.06 --gpu sm_90 --python 3.12 --torch 2.15");
  EXPECT_NE(gpu.find("from " + s.index.url() + "pypi/"), std::string::npos) << "PyPI's default build: " << gpu;
}

TEST(SetupPlanPure, WithoutPypiMirrorAnUnansweredTorchIndexFallsBackToPypiForTheDefaultBuild) {
  PlanMachine m;
  m.driver = "580.65.06", m.gpus = {{9, 0}}, m.python = "3.12", m.torch = "2.11";
  IndexReleases index;
  index.sources = {"https://pypi.org/simple/torch/", "https://download.pytorch.org/whl/torch/ (did not answer)"};
  index.unanswered = {"https://download.pytorch.org/whl/"};
  index.releases = {IndexRelease{"2.11.0", {{"", {"3.12"}}}}};  // PyPI's page: the unlabelled default build
  m.index = index;
  auto p = plan_install(m);
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.variant, "cu130");
  EXPECT_EQ(p.index_url, "https://pypi.org/simple/");
  EXPECT_NE(join(p.why, "\n").find("PyPI, which answered; https://download.pytorch.org/whl/ did not"), std::string::npos)
      << join(p.why, "\n");
  m.index->unanswered.clear();  // it answered: PyTorch's own index, as before
  EXPECT_EQ(plan_install(m).index_url, "https://download.pytorch.org/whl/cu130");
}

}  // namespace
}  // namespace dlready::test

namespace dlready::test {
namespace {

// Issue 50, item 12: setup --gpu takes the names people know (from the doctor's GPU table) as well
// as compute capabilities.
TEST(SetupCli, GpuNamesAreAcceptedFromTheDoctorsTable) {
  auto plan = [](const std::string& gpu, const std::string& more = "") {
    return run_command(std::string(DLREADY_BINARY) + " setup --dry-run --offline --driver 580.65.06 --python 3.12 --gpu " +
                       gpu + more + " 2>&1");
  };
  auto h100 = plan("H100");
  EXPECT_EQ(h100.status, 0) << h100.out;
  EXPECT_NE(h100.out.find("H100 = NVIDIA H100 (SXM5 80GB / PCIe / NVL 94GB), sm_90 (data/gpus.tsv)"), std::string::npos) << h100.out;
  EXPECT_EQ(plan("sm_90").out.substr(plan("sm_90").out.find("plan:")).substr(0, 40), h100.out.substr(h100.out.find("plan:")).substr(0, 40))
      << "the same plan as sm_90";
  auto rtx = plan("'GeForce RTX 4090'");
  EXPECT_NE(rtx.out.find("sm_89 (data/gpus.tsv)"), std::string::npos) << rtx.out;
  EXPECT_EQ(plan("rtx-4090").status, 0);
  auto gh200 = plan("GH200", " --platform linux-aarch64");
  EXPECT_NE(gh200.out.find("GH200 = NVIDIA GH200, sm_90"), std::string::npos) << gh200.out;
  auto spark = plan("'DGX Spark'", " --platform linux-aarch64");
  EXPECT_NE(spark.out.find("sm_121"), std::string::npos) << spark.out;
  auto unknown = plan("H1000");
  EXPECT_EQ(unknown.status, 2) << unknown.out;
  EXPECT_NE(unknown.out.find("--gpu 'H1000' is neither a compute capability"), std::string::npos) << unknown.out;
  // The names drivers report (nvidia-smi, collect_env): the model, then the board.
  for (const auto& [reported, sm] : std::vector<std::pair<std::string, std::string>>{
           {"'NVIDIA H100 80GB HBM3'", "sm_90"},
           {"'NVIDIA A100-SXM4-80GB'", "sm_80"},
           {"'NVIDIA GeForce RTX 4060 Laptop GPU'", "sm_89"},
           {"'NVIDIA H100 NVL'", "sm_90"}}) {
    auto board = plan(reported);
    EXPECT_NE(board.out.find(", " + sm + " (data/gpus.tsv)"), std::string::npos)
        << reported << ": " << board.out;
  }
  EXPECT_EQ(plan("A1000").status, 2) << "a different GPU, not an A100 with a board";
}

// Issue 62, item 12: the GH200's plan names PyPI's aarch64 default for 2.15 (cu132, read from the
// wheel, as x86_64's), so behind a PyPI mirror it installs from the mirror, and on a driver of
// CUDA 13.0 it says cu132 would run only through minor-version compatibility.
TEST(SetupCli, TheGh200PlanKnowsWhatPypiServesForAarch64) {
  auto plan = [](const std::string& more) {
    return run_command(std::string(DLREADY_BINARY) + " setup --dry-run --offline --platform linux-aarch64 --gpu GH200 "
                       "--python 3.12 " + more + " 2>&1");
  };
  auto mirror = plan("--driver 595.58.03 --index-url https://pypi.tuna.tsinghua.edu.cn/simple");
  EXPECT_EQ(mirror.status, 0) << mirror.out;
  EXPECT_NE(mirror.out.find("plan: torch==2.15.* (cu132) from https://pypi.tuna.tsinghua.edu.cn/simple"), std::string::npos)
      << mirror.out;
  EXPECT_NE(mirror.out.find("serves 2.15's default variant, cu132, the one planned"), std::string::npos) << mirror.out;
  EXPECT_EQ(mirror.out.find("did not answer"), std::string::npos) << mirror.out;
  auto older = plan("--driver 580.65.06");
  EXPECT_NE(older.out.find("2.15's cu132 runs on driver 580.65.06 only through minor-version compatibility"),
            std::string::npos) << older.out;
}

}  // namespace
}  // namespace dlready::test
