// The macOS doctor, tested here as a maintainer reads a Mac user's capture: fixture Macs (their
// files, their Mach-O binaries, their sysctl answers in the capture's manifest) replayed through the
// dlready binary with `doctor --root`; and the Mach-O reader on built files and garbage.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "binfmt/macho_reader.hpp"
#include "probe/macos/macos_probes.hpp"
#include "fixture.hpp"
#include "mac_fixture.hpp"
#include "macho_builder.hpp"

namespace dlready::test {
namespace {



TEST(MachO, ThinDylibWithItsMinimumMacosWeakFrameworksAndRpaths) {
  std::string bytes = macho_thin({kArm64, 6, 0x000E0000, {"/usr/lib/libc++.1.dylib"}, {kMpsGraph}, {"@loader_path"}});
  auto r = parse_macho(bytes_reader(bytes));
  ASSERT_TRUE(r.file) << r.error;
  ASSERT_EQ(r.file->slices.size(), 1u);
  const auto& s = r.file->slices[0];
  EXPECT_FALSE(r.file->fat);
  EXPECT_EQ(macho_cpu_name(s.cputype), "arm64");
  EXPECT_EQ(s.filetype, 6u);
  EXPECT_EQ(s.minos, "14.0");
  EXPECT_EQ(s.dylibs, std::vector<std::string>{"/usr/lib/libc++.1.dylib"});
  EXPECT_EQ(s.weak_dylibs, std::vector<std::string>{kMpsGraph});
  EXPECT_EQ(s.rpaths, std::vector<std::string>{"@loader_path"});
}

TEST(MachO, UniversalFileHasASlicePerCpu) {
  std::string bytes = macho_fat({{kX86_64, 2, 0x000A0F00, {}, {}, {}}, {kArm64, 2, 0x000B0000, {}, {}, {}}});
  auto r = parse_macho(bytes_reader(bytes));
  ASSERT_TRUE(r.file) << r.error;
  EXPECT_TRUE(r.file->fat);
  ASSERT_EQ(r.file->slices.size(), 2u);
  EXPECT_EQ(macho_cpu_name(r.file->slices[0].cputype), "x86_64");
  EXPECT_EQ(r.file->slices[0].minos, "10.15");
  ASSERT_NE(macho_slice(*r.file, kArm64), nullptr);
  EXPECT_EQ(macho_slice(*r.file, kArm64)->minos, "11.0");
}

TEST(MachO, GarbageIsAnErrorValue) {
  std::string good = macho_thin({kArm64, 6, 0x000B0000, {"/usr/lib/libSystem.B.dylib"}, {}, {}});
  for (size_t cut : {0u, 4u, 20u, 40u}) {
    auto r = parse_macho(bytes_reader(good.substr(0, cut)));
    EXPECT_FALSE(r.file) << "cut at " << cut;
    EXPECT_FALSE(r.error.empty());
  }
  std::string huge = good;
  huge[16] = '\xff', huge[17] = '\xff', huge[18] = '\xff', huge[19] = '\x7f';  // ncmds
  EXPECT_NE(parse_macho(bytes_reader(huge)).error.find("implausible"), std::string::npos);
  std::string java = std::string("\xCA\xFE\xBA\xBE\x00\x00\x00\x34", 8) + std::string(64, '\0');
  EXPECT_NE(parse_macho(bytes_reader(java)).error.find("Java"), std::string::npos);
  EXPECT_NE(parse_macho(bytes_reader("\x7f" "ELF" + std::string(60, '\0'))).error.find("not a Mach-O"), std::string::npos);
  // A command whose size runs past the others: the commands before it stand, nothing is read past.
  std::string bad = good;
  bad[32 + 4] = '\x7f';
  auto r = parse_macho(bytes_reader(bad));
  ASSERT_TRUE(r.file) << r.error;
  EXPECT_TRUE(r.file->slices[0].dylibs.empty());
}

struct Doctor {
  int status = 0;
  nlohmann::json report;
  std::string text;
};

Doctor doctor(const Mac& m) {
  Fixture f;
  write_mac(f, m);
  auto json = run_command(std::string(DLREADY_BINARY) + " doctor --json --root " + f.root + " 2>&1");
  Doctor d;
  d.status = json.status;
  d.report = nlohmann::json::parse(json.out, nullptr, false);
  d.text = run_command(std::string(DLREADY_BINARY) + " doctor --no-color --root " + f.root + " 2>&1").out;
  return d;
}

std::set<std::string> finding_ids(const Doctor& d) {
  std::set<std::string> ids;
  if (d.report.is_object())
    for (const auto& x : d.report.at("findings")) ids.insert(x.at("id").get<std::string>());
  return ids;
}

TEST(MacDoctor, AHealthyAppleSiliconMacIsMpsReady) {
  auto d = doctor({});
  ASSERT_FALSE(d.report.is_discarded()) << d.text;
  EXPECT_EQ(d.status, 0) << d.text;
  EXPECT_EQ(finding_ids(d), std::set<std::string>{}) << d.text;
  const auto& v = d.report.at("verdict");
  EXPECT_EQ(v.at("summary").get<std::string>().rfind("MPS ready", 0), 0u) << v.dump(1);
  EXPECT_EQ(v.at("cuda_usable"), false);
  EXPECT_EQ(v.at("torch")[0].at("mps_available"), true);
  const auto& mac = d.report.at("facts").at("macos");
  EXPECT_EQ(mac.at("product_version"), "15.1");
  EXPECT_EQ(mac.at("apple_silicon"), true);
  EXPECT_EQ(mac.at("torch")[0].at("minos"), "11.0");
  EXPECT_EQ(mac.at("torch")[0].at("mps_built"), true);
  EXPECT_EQ(mac.at("pythons")[0].at("cpus"), nlohmann::json::array({"arm64"}));
  EXPECT_EQ(d.report.at("facts").at("os").at("id"), "macos");
  EXPECT_NE(d.text.find("macOS 15.1 (24B83), Darwin 24.1.0, arm64"), std::string::npos) << d.text;
  EXPECT_NE(d.text.find("torch.backends.mps.is_available() would be True"), std::string::npos) << d.text;
  EXPECT_EQ(d.text.find("No NVIDIA GPU"), std::string::npos) << d.text;
}

TEST(MacDoctor, MacosThirteenWithTorch211HasNoMps) {
  Mac m;
  m.version = "13.6.7", m.build = "22G720", m.darwin = "22.6.0";
  auto d = doctor(m);
  EXPECT_EQ(d.status, 1) << d.text;
  EXPECT_EQ(finding_ids(d), std::set<std::string>{"macos-too-old-for-mps"}) << d.text;
  EXPECT_NE(d.text.find("its MPS needs macOS 14.0 or newer"), std::string::npos) << d.text;
  EXPECT_NE(d.text.find("pip install \"torch<2.9\""), std::string::npos) << d.text;
  EXPECT_EQ(d.report.at("verdict").at("summary").get<std::string>().rfind("CPU only", 0), 0u);
}

TEST(MacDoctor, AnIntelCondaOnAppleSiliconIsNamed) {
  Mac m;
  m.conda_subdir = "osx-64", m.python_cpus = {kX86_64}, m.torch = "2.2.2", m.torch_minos = 0x000A0D00;
  auto d = doctor(m);
  EXPECT_EQ(finding_ids(d), std::set<std::string>{"mac-python-under-rosetta"}) << d.text;
  EXPECT_NE(d.text.find("subdir osx-64"), std::string::npos) << d.text;
  EXPECT_NE(d.text.find("CONDA_SUBDIR=osx-arm64"), std::string::npos) << d.text;
}

// Issue 62, item 12b: a capture without sysctl's answers: its manifest's arch (arm64) still says
// Apple Silicon, so an x86_64 Python is under Rosetta; with no arch either, MPS is not claimed for it.
TEST(MacDoctor, ACaptureWithoutSysctlUsesItsArchAndNeverClaimsMpsForAnX86Python) {
  Mac m;
  m.sysctl_answers = false, m.arch = "arm64", m.python_cpus = {kX86_64}, m.torch = "2.2.2", m.torch_minos = 0x000A0D00;
  auto d = doctor(m);
  ASSERT_FALSE(d.report.is_discarded()) << d.text;
  EXPECT_TRUE(finding_ids(d).count("mac-python-under-rosetta")) << d.text;
  EXPECT_EQ(d.report.at("facts").at("os").at("arch"), "arm64") << d.text;
  EXPECT_EQ(d.report.at("verdict").at("summary").get<std::string>().find("MPS ready"), std::string::npos) << d.text;
  m.arch.reset();
  auto unknown = doctor(m);
  ASSERT_FALSE(unknown.report.is_discarded()) << unknown.text;
  const auto& v = unknown.report.at("verdict");
  EXPECT_EQ(v.at("summary").get<std::string>().rfind("MPS not known", 0), 0u) << v.dump(1);
  EXPECT_TRUE(!v.at("torch")[0].contains("mps_available") || v.at("torch")[0].at("mps_available").is_null()) << v.dump(1);
  // An arm64 Python needs no processor to be known: MPS ready as before.
  m.python_cpus = {kArm64}, m.torch = "2.11.0", m.torch_minos = 0x000B0000;
  EXPECT_EQ(doctor(m).report.at("verdict").at("summary").get<std::string>().rfind("MPS ready", 0), 0u);
}

TEST(MacDoctor, AnIntelMacStopsAtTorch222) {
  Mac m;
  m.apple_silicon = false, m.model = "MacBookPro16,1", m.brand = "Intel(R) Core(TM) i7-9750H CPU @ 2.60GHz";
  m.python_cpus = {kX86_64}, m.torch = "2.2.2", m.torch_minos = 0x000A0D00, m.version = "14.7", m.darwin = "23.6.0";
  auto d = doctor(m);
  EXPECT_EQ(finding_ids(d), std::set<std::string>{"mac-intel-no-new-torch"}) << d.text;
  EXPECT_EQ(d.status, 0) << "a warning: --fail-on error passes";
}

TEST(MacDoctor, AVirtualMacHasNoMetalDeviceForMps) {
  Mac m;
  m.vm = true, m.model = "VirtualMac2,1", m.brand = "Apple M1 (Virtual)";
  auto d = doctor(m);
  EXPECT_EQ(finding_ids(d), std::set<std::string>{"mac-virtual-machine-no-mps"}) << d.text;
}

TEST(MacDoctor, ATorchBuiltWithoutMps) {
  Mac m;
  m.torch_mps = false;
  auto d = doctor(m);
  EXPECT_EQ(finding_ids(d), std::set<std::string>{"torch-built-without-mps"}) << d.text;
}

TEST(MacDoctor, ATorchBuiltForANewerMacosFailsToImport) {
  Mac m;
  m.version = "13.6.7", m.darwin = "22.6.0", m.torch = "2.12.0", m.torch_minos = 0x000E0000;
  auto d = doctor(m);
  EXPECT_EQ(finding_ids(d), std::set<std::string>{"mac-torch-needs-newer-macos"}) << d.text;
}

TEST(MacDoctor, TheCompatibilityShimsVersionIsReadThroughTheDarwinRelease) {
  Mac m;
  m.version = "10.16", m.darwin = "23.6.0";  // macOS 14 to an old-SDK process
  auto d = doctor(m);
  EXPECT_EQ(finding_ids(d), std::set<std::string>{}) << d.text;
  EXPECT_EQ(d.report.at("facts").at("macos").at("version_shimmed"), true);
  m.darwin = "22.6.0";  // macOS 13
  EXPECT_EQ(finding_ids(doctor(m)), std::set<std::string>{"macos-too-old-for-mps"});
}

TEST(MacDoctor, AnIntelMacWithPython313HasNoWheelAtAll) {
  Mac m;
  m.apple_silicon = false, m.model = "MacBookPro16,1", m.brand = "Intel(R) Core(TM) i7-9750H CPU @ 2.60GHz";
  m.python_cpus = {kX86_64}, m.torch = "", m.python = "3.13", m.version = "14.7", m.darwin = "23.6.0";
  auto d = doctor(m);
  EXPECT_EQ(finding_ids(d), (std::set<std::string>{"mac-intel-no-new-torch", "mac-python-no-torch-wheels", "torch-not-installed"}))
      << d.text;
  EXPECT_NE(d.text.find("stop at torch 2.2.2, for Python 3.8 to 3.12"), std::string::npos) << d.text;
  EXPECT_NE(d.text.find("pip install \"torch==2.2.2\""), std::string::npos) << d.text;
  m.python = "3.12";  // the same Mac with 3.12: 2.2.2 installs
  EXPECT_EQ(finding_ids(doctor(m)), (std::set<std::string>{"mac-intel-no-new-torch", "torch-not-installed"}));
}

TEST(MacDoctor, TwoOpenmpRuntimesBesideTorchAreNamedAndMpsStillWorks) {
  Mac m;
  const std::string sp = "/opt/homebrew/lib/python3.12/site-packages";
  m.files = {{sp + "/torch/lib/libomp.dylib", "omp"}, {sp + "/sklearn/.dylibs/libomp.dylib", "omp2"},
             {sp + "/sklearn/__init__.py", ""}};
  auto d = doctor(m);
  EXPECT_EQ(finding_ids(d), std::set<std::string>{"mac-two-openmp-runtimes"}) << d.text;
  EXPECT_NE(d.text.find("sklearn/.dylibs/libomp.dylib"), std::string::npos) << d.text;
  EXPECT_EQ(d.report.at("verdict").at("summary").get<std::string>().rfind("MPS ready", 0), 0u) << d.text;
  m.files.erase(sp + "/sklearn/.dylibs/libomp.dylib");  // torch's own alone is fine
  EXPECT_EQ(finding_ids(doctor(m)), std::set<std::string>{});
}

TEST(MacDoctor, ACudaIndexCopiedFromALinuxTutorialIsNamedWithoutItsToken) {
  Mac m;
  m.env = {{"PIP_EXTRA_INDEX_URL", "https://alice:s3cret@download.pytorch.org/whl/cu124"}};
  m.files = {{"/Users/alice/.config/pip/pip.conf", "[global]\nindex-url = https://download.pytorch.org/whl/cu121\n"}};
  auto d = doctor(m);
  EXPECT_EQ(finding_ids(d), std::set<std::string>{"mac-cuda-index-configured"}) << d.text;
  EXPECT_NE(d.text.find("/Users/alice/.config/pip/pip.conf: index-url = https://download.pytorch.org/whl/cu121"),
            std::string::npos) << d.text;
  EXPECT_EQ(d.text.find("s3cret"), std::string::npos) << d.text;
  EXPECT_EQ(d.report.dump().find("s3cret"), std::string::npos);
}

TEST(MacDoctor, HomebrewsPythonWithoutTorchNeedsAVenv) {
  Mac m;
  m.torch = "";
  m.files = {{"/opt/homebrew/Cellar/python@3.12/3.12.7/Frameworks/Python.framework/Versions/3.12/lib/python3.12/EXTERNALLY-MANAGED",
              "[externally-managed]\n"}};
  Fixture f;
  write_mac(f, m);
  // Homebrew's bin/python3.12 is a link into its Cellar, where the standard library and the marker are.
  f.remove("/opt/homebrew/bin/python3.12");
  f.write("/opt/homebrew/Cellar/python@3.12/3.12.7/Frameworks/Python.framework/Versions/3.12/bin/python3.12",
          macho_thin({kArm64, 2, 0x000B0000, {"/usr/lib/libSystem.B.dylib"}, {}, {}}), 0755);
  f.link("/opt/homebrew/bin/python3.12", "../Cellar/python@3.12/3.12.7/Frameworks/Python.framework/Versions/3.12/bin/python3.12");
  auto run = run_command(std::string(DLREADY_BINARY) + " doctor --json --root " + f.root + " 2>&1");
  auto report = nlohmann::json::parse(run.out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << run.out;
  std::set<std::string> ids;
  for (const auto& x : report.at("findings")) ids.insert(x.at("id").get<std::string>());
  EXPECT_EQ(ids, (std::set<std::string>{"mac-pip-externally-managed", "torch-not-installed"})) << run.out;
  EXPECT_NE(run.out.find("python3.12 -m venv ~/.venvs/torch"), std::string::npos) << run.out;
}

TEST(MacDoctor, MpsVariablesAreCheckedAsTorchReadsThem) {
  Mac m;
  m.env = {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.0"}, {"PYTORCH_ENABLE_MPS_FALLBACK", "1"}};
  auto d = doctor(m);
  EXPECT_EQ(finding_ids(d), (std::set<std::string>{"mps-memory-limit-off", "mps-cpu-fallback-on"})) << d.text;
  EXPECT_EQ(d.status, 0) << "a warning and a note: MPS still works";
  m.env = {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "1.7x"}};
  d = doctor(m);
  EXPECT_EQ(finding_ids(d), std::set<std::string>{"mps-watermark-invalid"}) << d.text;
  EXPECT_EQ(d.status, 1);
  m.env = {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "1.0"}, {"PYTORCH_MPS_LOW_WATERMARK_RATIO", "0.5"}};
  EXPECT_EQ(finding_ids(doctor(m)), std::set<std::string>{});
}

TEST(MacDoctor, TheMetalProbesRecordDecides) {
  Mac m;
  m.metal = nlohmann::json{{"devices", {{{"name", "Apple M3"}, {"low_power", false}, {"mac2", true}}}},
                           {"mpsgraph_gates", {{"12.3", true}, {"13.0", true}, {"14.0", true}}}};
  auto d = doctor(m);
  EXPECT_EQ(finding_ids(d), std::set<std::string>{}) << d.text;
  EXPECT_EQ(d.report.at("facts").at("macos").at("metal").at("devices")[0].at("name"), "Apple M3");
  m.metal = nlohmann::json{{"devices", nlohmann::json::array()}, {"mpsgraph_gates", nlohmann::json::object()}};
  d = doctor(m);
  EXPECT_EQ(finding_ids(d), std::set<std::string>{"mac-no-metal-device-for-mps"}) << d.text;
  EXPECT_EQ(d.report.at("verdict").at("summary").get<std::string>().rfind("CPU only", 0), 0u) << d.text;
  m.metal = nlohmann::json{{"devices", "many"}};  // a stranger's capture: one line, exit 2
  d = doctor(m);
  EXPECT_EQ(d.status, 2) << d.text;
  EXPECT_NE(d.text.find("\"metal.devices\" is a string, not a list"), std::string::npos) << d.text;
}

TEST(MacDoctor, TheMetalChildsLinesAreReadDefensively) {
  auto p = parse_metal_wire("gate\t14.0\t1\ndevice\tApple M2 Max\t0\t1\ndevice\tshort\nwhat\tever\n"
                            "device\tIntel UHD\t1\t0\nerror\tcannot \x1b[31mload\n");
  ASSERT_EQ(p.devices.size(), 2u);
  EXPECT_EQ(p.devices[0].name, "Apple M2 Max");
  EXPECT_TRUE(p.devices[0].mac2);
  EXPECT_TRUE(p.devices[1].low_power);
  EXPECT_EQ(p.mpsgraph_gates.at("14.0"), true);
  ASSERT_TRUE(p.error);
  EXPECT_EQ(p.error->find('\x1b'), std::string::npos) << *p.error;
  std::string flood;
  for (int i = 0; i < 100000; ++i) flood += "device\tx\t0\t1\n";
  EXPECT_EQ(parse_metal_wire(flood).devices.size(), 64u);
  EXPECT_EQ(parse_metal_wire(metal_wire_line({"device", "a\tb\nc", "0", "1"})).devices.at(0).name, "a b c");
}

TEST(MacDoctor, AMacsCaptureReplaysAsAMac) {
  // What `dlready capture` writes on a Mac, made here from a Mac's folder: the files the macOS source
  // read, and a manifest that names the platform, so the replay reads it as a Mac again.
  Fixture f;
  Mac m;
  m.version = "13.6.7", m.build = "22G720", m.darwin = "22.6.0";
  write_mac(f, m);
  f.remove("/.dlready-capture");
  Fixture out;
  std::string capture = out.root + "/mac-capture";
  auto run = run_command(std::string(DLREADY_BINARY) + " capture --root " + f.root + " " + capture + " 2>&1");
  ASSERT_EQ(run.status, 0) << run.out;
  auto manifest = nlohmann::json::parse(run_command("cat " + capture + "/.dlready-capture/capture.json").out, nullptr, false);
  ASSERT_FALSE(manifest.is_discarded());
  EXPECT_EQ(manifest.at("platform"), "macos");
  auto replay = run_command(std::string(DLREADY_BINARY) + " doctor --json --root " + capture + " 2>&1");
  auto report = nlohmann::json::parse(replay.out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << replay.out;
  ASSERT_TRUE(report.at("facts").at("macos").is_object()) << run_command("find " + capture).out << manifest.dump(1);
  EXPECT_EQ(report.at("facts").at("macos").at("product_version"), "13.6.7");
  EXPECT_EQ(report.at("facts").at("macos").at("torch")[0].at("mps_built"), true) << "torch's Mach-O headers were kept";
  std::set<std::string> ids;
  for (const auto& x : report.at("findings")) ids.insert(x.at("id").get<std::string>());
  EXPECT_EQ(ids, std::set<std::string>{"macos-too-old-for-mps"}) << replay.out;
}

TEST(MacDoctor, AMacFolderWithoutAManifestStillReadsItsFiles) {
  Fixture f;
  write_mac(f, {});
  f.remove("/.dlready-capture");
  auto run = run_command(std::string(DLREADY_BINARY) + " doctor --no-color --root " + f.root + " 2>&1");
  EXPECT_NE(run.out.find("macOS 15.1"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("no sysctl answers in this root"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace dlready::test
