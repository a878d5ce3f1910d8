// Linux on Arm (issue 49): fixture aarch64 machines — a GH200 with PyPI's CPU wheel, a healthy GH200,
// a Grace with the proprietary driver, a Jetson Orin on JetPack 6.1 with a PyPI wheel and with the
// Jetson AI Lab wheel — and the readers they need (markers, the L4T release, Orin's own SASS).
#include <gtest/gtest.h>
#include <elf.h>
#include <unistd.h>

#include <cstring>

#include <functional>
#include <nlohmann/json.hpp>
#include <set>

#include "diagnose/catalogue.hpp"
#include "core/text.hpp"
#include "compat/compat.hpp"
#include "planner/install_plan.hpp"
#include "diagnose/rules.hpp"
#include "arm_fixture.hpp"
#include "probe/requirement_markers.hpp"

namespace dlready::test {
namespace {

TEST(ArmDoctor, Gh200WithPypisCpuWheelIsCpuOnlyNotMissingCudaWheels) {
  Fixture f;
  gh200(f, pypi_aarch64_cpu_wheel());
  write_marked_metadata(f);
  auto facts = f.facts();
  EXPECT_EQ(facts.os.arch, "aarch64");
  ASSERT_TRUE(facts.arm);
  EXPECT_TRUE(facts.arm->grace);
  EXPECT_EQ(facts.arm->page_size, 65536u);
  ASSERT_EQ(facts.python.envs.size(), 1u);
  EXPECT_TRUE(facts.python.envs[0].torch[0].nvidia_pins.empty()) << "x86_64-only requirements are not this machine's";
  auto r = f.report();
  EXPECT_TRUE(has_finding(r, "torch-cpu-only")) << finding_ids(r);
  EXPECT_FALSE(has_finding(r, "torch-cuda-wheel-missing")) << finding_ids(r);
  for (const auto& x : r.findings)
    if (x.id == "torch-cpu-only") {
      EXPECT_NE(x.fix[0].find("whl/cu128"), std::string::npos) << x.fix[0];
    }
}

TEST(ArmDoctor, AHealthyGh200IsReady) {
  Fixture f;
  gh200(f, TorchSpec{});
  auto r = f.report();
  EXPECT_EQ(exit_status(r, Severity::warning), 0) << finding_ids(r);
  EXPECT_TRUE(r.verdict.cuda_usable);
}

TEST(ArmDoctor, A4kAlignedLibraryOnA64kGraceIsNamed) {
  Fixture f;
  gh200(f, TorchSpec{});
  const std::string sp = "/home/alice/venv/lib/python3.11/site-packages";
  f.write(sp + "/oldpkg/_native.cpython-311-aarch64-linux-gnu.so", elf_with_load_align(0x1000));
  f.write(sp + "/newpkg/_native.cpython-311-aarch64-linux-gnu.so", elf_with_load_align(0x10000));
  auto facts = f.facts();
  ASSERT_TRUE(facts.arm);
  ASSERT_EQ(facts.arm->misaligned_libraries.size(), 1u);
  EXPECT_NE(facts.arm->misaligned_libraries[0].find("oldpkg/"), std::string::npos);
  auto r = f.report();
  EXPECT_TRUE(has_finding(r, "library-misaligned-for-page-size")) << finding_ids(r);
  f.write("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "2097152\n");  // the 4K-page kernel: fine
  EXPECT_FALSE(has_finding(f.report(), "library-misaligned-for-page-size"));
}

TEST(ArmDoctor, GraceWithTheProprietaryDriverIsNamed) {
  Fixture f;
  gh200(f, TorchSpec{});
  f.write("/proc/driver/nvidia/version", "NVRM version: NVIDIA UNIX aarch64 Kernel Module  580.65.06  Release Build\n");
  auto r = f.report();
  EXPECT_TRUE(has_finding(r, "grace-needs-open-kernel-modules")) << finding_ids(r);
  EXPECT_EQ(exit_status(r), 1);
}

TEST(ArmDoctor, OrinOnJetpack61WithAPypiWheelNeedsTheJetpackWheel) {
  Fixture f;
  orin(f, pypi_aarch64_cpu_wheel());
  auto facts = f.facts();
  ASSERT_TRUE(facts.arm);
  EXPECT_TRUE(facts.arm->tegra);
  EXPECT_EQ(facts.arm->l4t_release, "36.4.0");
  EXPECT_EQ(facts.arm->jetpack, "6.1");
  auto r = f.report();
  EXPECT_TRUE(has_finding(r, "jetson-needs-jetpack-wheel")) << finding_ids(r);
  EXPECT_FALSE(has_finding(r, "no-nvidia-gpu")) << "Orin's GPU is integrated, not absent";
  EXPECT_FALSE(has_finding(r, "torch-cpu-only")) << finding_ids(r);
  for (const auto& x : r.findings)
    if (x.id == "jetson-needs-jetpack-wheel") {
      EXPECT_NE(x.fix[0].find("https://pypi.jetson-ai-lab.io/jp6/cu126"), std::string::npos) << x.fix[0];
    }
}

TEST(ArmDoctor, OrinWithTheJetsonAiLabWheelIsNotToldToReinstall) {
  Fixture f;
  TorchSpec jetson;
  jetson.version = "2.8.0", jetson.cuda = "12.6", jetson.pins = {}, jetson.installed = {};
  orin(f, jetson);
  auto r = f.report();
  EXPECT_FALSE(has_finding(r, "jetson-needs-jetpack-wheel")) << finding_ids(r);
  EXPECT_FALSE(has_finding(r, "no-nvidia-gpu")) << finding_ids(r);
}

TEST(ArmDoctor, Gb10WithACu126WheelHasNoCodeForIt) {
  Fixture f;
  TorchSpec cu126;
  cu126.version = "2.10.0+cu126", cu126.cuda = "12.6", cu126.pins = {}, cu126.installed = {};
  gb10(f, cu126);
  auto r = f.report();
  EXPECT_TRUE(has_finding(r, "arch-not-supported")) << finding_ids(r);
  EXPECT_FALSE(has_finding(r, "gb10-capability-warning-harmless")) << "no code at all is not the harmless warning";
}

TEST(ArmDoctor, Gb10WithCu128RunsAndItsWarningIsHarmless) {
  Fixture f;
  TorchSpec cu128;
  cu128.version = "2.10.0+cu128", cu128.cuda = "12.8", cu128.pins = {}, cu128.installed = {};
  gb10(f, cu128);
  auto r = f.report();
  EXPECT_FALSE(has_finding(r, "arch-not-supported")) << finding_ids(r);
  EXPECT_TRUE(has_finding(r, "gb10-capability-warning-harmless")) << finding_ids(r);
  EXPECT_EQ(exit_status(r), 0) << finding_ids(r);
}

TEST(ArmDoctor, AHealthyGb10WithTorch211IsReady) {
  Fixture f;
  gb10(f, TorchSpec{});
  auto r = f.report();
  EXPECT_EQ(exit_status(r, Severity::warning), 0) << finding_ids(r);
  EXPECT_TRUE(r.verdict.cuda_usable);
}

TEST(ArmDoctor, ThorWithACu128WheelHasNoSm110) {
  Fixture f;
  add_base_system(f);
  f.write("/lib/ld-linux-aarch64.so.1", "");
  f.write("/etc/nv_tegra_release", "# R38 (release), REVISION: 2.0, GCID: 41000000, BOARD: generic, EABI: aarch64\n");
  f.write("/proc/device-tree/model", std::string("NVIDIA Jetson AGX Thor Developer Kit") + '\0');
  f.write("/proc/device-tree/compatible", std::string("nvidia,tegra264") + '\0');
  TorchSpec cu128;
  cu128.version = "2.10.0+cu128", cu128.cuda = "12.8";
  cu128.pins = {{"nvidia-cudnn-cu12", "9.10.2.21"}}, cu128.installed = {{"nvidia-cudnn-cu12", "9.10.2.21"}};
  add_torch_venv(f, "/home/alice/venv", cu128);
  auto r = f.report();
  EXPECT_TRUE(has_finding(r, "arch-not-supported")) << finding_ids(r);
  EXPECT_FALSE(has_finding(r, "jetson-needs-jetpack-wheel")) << "Thor (JetPack 7) runs server wheels";
}

TEST(ArmDoctor, OrinRunsOnlyItsOwnSass) {
  EXPECT_FALSE(arch_list_covers("8.0;8.6;9.0", 8, 7)) << "8.0 and 8.6 code does not run on Orin";
  EXPECT_TRUE(arch_list_covers("8.7", 8, 7));
  EXPECT_TRUE(arch_list_covers("8.0+PTX", 8, 7)) << "PTX is compiled for it";
  EXPECT_TRUE(arch_list_covers("8.0;8.6", 8, 9)) << "Ada still runs 8.6 code";
  EXPECT_TRUE(arch_list_covers("12.0", 12, 1)) << "GB10 runs 12.0 code";
}

// The aarch64 executable (scripts/build-wheels.sh builds it before the tests) on the same fixture
// machines, run for real under qemu-aarch64: the same findings and exit status as this build's.
std::set<std::string> ids_of(const std::string& json) {
  std::set<std::string> ids;
  auto j = nlohmann::json::parse(json, nullptr, false);
  if (j.is_object())
    for (const auto& x : j.at("findings")) ids.insert(x.at("id").get<std::string>());
  return ids;
}

TEST(ArmDoctor, TheAarch64ExecutableUnderQemuFindsTheSame) {
  std::string arm = std::string(DLREADY_SOURCE_DIR) + "/build/portable-aarch64-linux/dlready";
  if (::access(arm.c_str(), X_OK) != 0 || run_command("command -v qemu-aarch64 >/dev/null").status != 0 ||
      ::access("/usr/aarch64-linux-gnu/lib", R_OK) != 0)
    GTEST_SKIP() << "needs " << arm << " (scripts/build-wheels.sh linux-aarch64), qemu-user and libc6-arm64-cross";
  const std::pair<const char*, std::function<void(Fixture&)>> machines[] = {
      {"GH200, PyPI's CPU wheel", [](Fixture& f) { gh200(f, pypi_aarch64_cpu_wheel()); write_marked_metadata(f); }},
      {"Orin, PyPI wheel", [](Fixture& f) { orin(f, pypi_aarch64_cpu_wheel()); }},
      {"GB10, cu126", [](Fixture& f) {
         TorchSpec t;
         t.version = "2.10.0+cu126", t.cuda = "12.6", t.pins = {}, t.installed = {};
         gb10(f, t);
       }},
      {"Orin, a JetPack 6.0 wheel on 6.2", [](Fixture& f) { orin(f, jetpack60_wheel()), jetpack62(f), jetpack60_libraries(f); }},
      {"Orin on JetPack 7.2, PyPI's cu130", [](Fixture& f) {
         orin(f, TorchSpec{});
         f.write("/etc/nv_tegra_release", "# R39 (release), REVISION: 0.0, GCID: 42000000, BOARD: generic, EABI: aarch64\n");
       }},
      {"GH200, 64K pages, bundled jemalloc", [](Fixture& f) {
         gh200(f, TorchSpec{});
         f.write(std::string(kSp) + "/fastpkg.libs/libjemalloc-3a9c1e.so.2", elf_with_load_align(0x1000));
       }}};
  for (const auto& [name, build] : machines) {
    Fixture f;
    build(f);
    // Files only on both sides: the fixtures' fake driver libraries are x86_64 code.
    std::string args = " doctor --json --no-cache --no-driver-probe --root " + f.root + " 2>/dev/null";
    std::string env = f.env_command();
    auto native = run_command(env + " " + DLREADY_BINARY + args);
    auto emulated = run_command(env + " qemu-aarch64 -L /usr/aarch64-linux-gnu " + arm + args);
    EXPECT_EQ(ids_of(emulated.out), ids_of(native.out)) << name;
    EXPECT_FALSE(ids_of(emulated.out).empty()) << name << ": " << emulated.out.substr(0, 400);
    EXPECT_FALSE(ids_of(emulated.out).count("torch-not-installed")) << name << ": the fixture's venv was not read";
    EXPECT_EQ(emulated.status, native.status) << name;
  }
}

PlanMachine arm_machine(std::vector<std::pair<int, int>> gpus, const std::string& driver) {
  PlanMachine m;
  m.platform = "linux-aarch64", m.gpus = std::move(gpus), m.driver = driver, m.python = "3.12";
  return m;
}

TEST(SetupPlanArm, ServerGpusGetAnSbsaBuildWithTheirCode) {
  auto p = plan_install(arm_machine({{9, 0}}, "580.65.06"));  // GH200
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_TRUE(starts_with(p.variant, "cu13")) << p.variant;
  p = plan_install(arm_machine({{12, 1}}, "575.57.08"));  // GB10 on R575: CUDA 12.x, and cu126 has no Blackwell code
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.variant, "cu128");
  EXPECT_EQ(p.release, "2.10");
  p = plan_install(arm_machine({{11, 0}}, "575.57.08"));  // Thor: no CUDA 12 build has sm_110
  EXPECT_FALSE(p.ok);
  auto orin = plan_install(arm_machine({{8, 7}}, "540.4.0"));
  EXPECT_FALSE(orin.ok);
  EXPECT_NE(orin.error.find("--jetpack"), std::string::npos) << orin.error;
  PlanMachine jetson;
  jetson.platform = "linux-aarch64", jetson.jetpack = "6.2", jetson.python = "3.10";
  p = plan_install(jetson);
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.index_url, "https://pypi.jetson-ai-lab.io/jp6/cu126");
}

TEST(SetupPlanArm, ThisJetsonIsPlannedFromItsFiles) {
  Fixture f;
  orin(f, pypi_aarch64_cpu_wheel());
  auto out = run_command(std::string(DLREADY_BINARY) + " setup --dry-run --offline --json --python 3.10 --root " + f.root + " 2>&1");
  auto j = nlohmann::json::parse(out.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out.out;
  EXPECT_EQ(j["index_url"], "https://pypi.jetson-ai-lab.io/jp6/cu126") << out.out;
  auto flags = run_command(std::string(DLREADY_BINARY) + " setup --dry-run --jetpack 6.1 --python 3.10 2>&1");
  EXPECT_NE(flags.out.find("jp6/cu126"), std::string::npos) << flags.out;
  auto bad = run_command(std::string(DLREADY_BINARY) + " setup --dry-run --jetpack 6.1 --gpu sm_87 --python 3.10 2>&1");
  EXPECT_EQ(bad.status, 2) << bad.out;
}

TEST(RequirementMarkers, AsPipEvaluatesThem) {
  MarkerEnvironment arm{"linux", "Linux", "aarch64", "3.12"}, x86{"linux", "Linux", "x86_64", "3.12"};
  const char* cuda_only = R"(platform_system == "Linux" and platform_machine == "x86_64")";
  EXPECT_EQ(marker_holds(cuda_only, arm), false);
  EXPECT_EQ(marker_holds(cuda_only, x86), true);
  EXPECT_EQ(marker_holds("", arm), true);
  EXPECT_EQ(marker_holds(R"(extra == "opt-einsum")", x86), false);
  EXPECT_EQ(marker_holds(R"(python_version < "3.13" and (sys_platform == 'linux' or sys_platform == 'win32'))", arm), true);
  EXPECT_EQ(marker_holds(R"(python_version >= "3.13")", arm), false);
  EXPECT_EQ(marker_holds(R"(platform_machine == "x86_64")", MarkerEnvironment{}), true) << "unknown: kept";
  for (const char* bad : {"platform_machine ==", "(((", "\"unterminated", "nonsense_var == \"x\"", "a b c d"})
    EXPECT_EQ(marker_holds(bad, x86), std::nullopt) << bad;
  EXPECT_EQ(marker_holds(std::string(100000, '('), x86), std::nullopt);
}

}  // namespace
}  // namespace dlready::test
