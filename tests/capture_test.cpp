// `dlready capture` through the binary: a machine captured, unpacked and replayed with
// `dlready doctor --root` gives the report the machine gave (minus timings), driver answers
// included; the redacted capture holds no user, host or home name; tests/machines/ holds real
// machines' captures with the findings each must give.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <cstdio>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "os/posix_fs.hpp"
#include "core/text.hpp"
#include "fixture.hpp"
#include "pe_builder.hpp"

namespace dlready::test {
namespace {

CommandRun run(const std::string& env, const std::string& args) {
  return run_command(env + " " + std::string(DLREADY_BINARY) + " " + args + " 2>&1");
}

// The report without what differs between two runs of the same machine: where it was read from
// and how long the driver took.
nlohmann::json comparable(nlohmann::json j) {
  if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto it = j.begin(); it != j.end(); ++it)
      if (it.key() != "root" && it.key() != "elapsed_ms") out[it.key()] = comparable(it.value());
    return out;
  }
  if (j.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : j) out.push_back(comparable(e));
    return out;
  }
  return j;
}

nlohmann::json json_file(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in, nullptr, false);
}

// The replay's report and the one the machine gave when it was captured.
void expect_replays_to_its_report(const std::string& dir) {
  auto replay = run("env -i PATH=/usr/bin:/bin", "doctor --no-cache --json --root " + dir);
  auto replayed = nlohmann::json::parse(replay.out, nullptr, false);
  ASSERT_FALSE(replayed.is_discarded()) << replay.out;
  auto original = json_file(dir + "/.dlready-capture/doctor.json");
  ASSERT_FALSE(original.is_discarded());
  EXPECT_EQ(comparable(replayed), comparable(original));
  EXPECT_EQ(replayed["facts"]["root"], dir);
}

std::string all_text_under(const std::string& dir) {
  return command_output("cd " + dir + " && find . -print && find . -type f -exec cat {} +");
}

TEST(Capture, ThisMachineReplaysToItsOwnReport) {
  Fixture scratch;
  std::string tarball = scratch.root + "/machine.tar.gz", dir = scratch.root + "/machine";
  auto made = run("", "capture --no-redact " + tarball);
  ASSERT_EQ(made.status, 0) << made.out;
  EXPECT_NE(made.out.find("replay it: d=$(mktemp -d) && tar --no-same-owner --no-same-permissions -xzf"), std::string::npos) << made.out;
  struct stat st {};
  ASSERT_EQ(::stat(tarball.c_str(), &st), 0);
  EXPECT_LE(st.st_size, 2 << 20) << "a capture is small enough to attach to an issue";
  ASSERT_EQ(std::system(("mkdir " + dir + " && tar -xzf " + tarball + " -C " + dir).c_str()), 0);
  expect_replays_to_its_report(dir);
  auto manifest = json_file(dir + "/.dlready-capture/capture.json");
  EXPECT_EQ(manifest["redacted"], false);
  EXPECT_EQ(manifest["format"], 1);
}

// Issue 50 item 15: `dlready capture` with no name writes dlready-capture-<date>.tar.gz where it
// runs, and the replay line it prints works as printed, again and again (a fixed folder name failed
// the second time: "mkdir: cannot create directory 'machine': File exists").
TEST(Capture, WithoutANameItPicksOneAndItsReplayLineWorksTwice) {
  Fixture scratch;
  auto made = run_command("cd " + scratch.root + " && " + DLREADY_BINARY + " capture --no-driver-probe 2>&1");
  ASSERT_EQ(made.status, 0) << made.out;
  auto name = command_output("cd " + scratch.root + " && ls dlready-capture-*.tar.gz");
  ASSERT_EQ(name.rfind("dlready-capture-20", 0), 0u) << name << made.out;
  auto at = made.out.find("replay it: ");
  ASSERT_NE(at, std::string::npos) << made.out;
  std::string recipe = made.out.substr(at + 11, made.out.find('\n', at) - at - 11);
  auto doctor = recipe.find("dlready doctor");
  ASSERT_NE(doctor, std::string::npos) << recipe;
  recipe.replace(doctor, 7, DLREADY_BINARY);
  for (int i = 0; i < 2; ++i) {
    // The doctor's own status is the machine's verdict (1 with an error finding); the line itself worked.
    auto replay = run_command("cd " + scratch.root + " && " + recipe + " 2>&1");
    EXPECT_TRUE(replay.status == 0 || replay.status == 1) << "replay " << i + 1 << ": " << recipe << "\n" << replay.out;
    EXPECT_NE(replay.out.find("Verdict"), std::string::npos) << "replay " << i + 1 << ": " << replay.out;
  }
}

TEST(Capture, ABusyMachineReplaysWhatRanThen) {
  // More runnable processes than processors: the doctor lists them (itself excepted, as the
  // capture's /proc/self says).
  std::vector<pid_t> spinners;
  for (int i = 0; i < 4; ++i)
    spinners.push_back(start_in_background("timeout 30 sh -c 'while :; do :; done' </dev/null", "/dev/null"));
  ::usleep(1500 * 1000);  // the 1-minute load average rises a little; the runnable count at once
  Fixture scratch;
  std::string dir = scratch.root + "/busy";
  auto made = run("", "capture --no-redact " + dir);
  for (pid_t p : spinners) ::kill(p, SIGTERM);
  for (pid_t p : spinners) (void)wait_exit(p, 5);
  ASSERT_EQ(made.status, 0) << made.out;
  auto original = json_file(dir + "/.dlready-capture/doctor.json");
  EXPECT_FALSE(original["facts"]["os"]["load"]["running_commands"].empty()) << original["facts"]["os"]["load"].dump();
  expect_replays_to_its_report(dir);
}

TEST(Capture, DriverAnswersReplayWithoutLoadingTheDriver) {
  Fixture f;
  healthy_gpu_machine(f);
  Fixture out;
  std::string dir = out.root + "/h100";
  auto made = run("env -i PATH=/usr/bin:/bin HOME=/home/alice USER=alice", "capture --load-root-drivers --no-redact --root " + f.root + " " + dir);
  ASSERT_EQ(made.status, 0) << made.out;
  auto manifest = json_file(dir + "/.dlready-capture/capture.json");
  ASSERT_TRUE(manifest["children"].contains("cuda")) << manifest.dump(2);
  EXPECT_EQ(manifest["children"]["cuda"]["values"]["dev0.name"], "NVIDIA H100 80GB HBM3");
  // The copy of libcuda.so.1 holds only what the doctor read of it: it could not be loaded.
  expect_replays_to_its_report(dir);
  auto replay = run("env -i PATH=/usr/bin:/bin", "doctor --no-cache --json --root " + dir);
  auto j = nlohmann::json::parse(replay.out);
  EXPECT_EQ(j["facts"]["driver_api"]["devices"][0]["name"], "NVIDIA H100 80GB HBM3") << replay.out.substr(0, 2000);
  EXPECT_EQ(j["verdict"]["cuda_usable"], true);
}

// The H200's case: a GPU machine whose torch holds a ~0.5 GB libtorch_cuda.so. The capture keeps
// the GPU code the doctor found in its fat binaries (capture.json), not the fat binaries, and the
// replay reports the same code and the same verdict for the GPU.
TEST(Capture, AGpuMachineKeepsItsGpuCodeNotItsFatBinaries) {
  std::string wheel = std::string(DLREADY_UV).substr(0, std::string(DLREADY_UV).rfind("/bin/uv")) +
                      "/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so";
  if (!path_exists(wheel)) GTEST_SKIP() << "the pinned venv's libtorch_cuda.so is not here: " << wheel;
  Fixture f;
  healthy_gpu_machine(f);
  const std::string lib = "/home/alice/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so";
  f.remove(lib);
  if (::link(wheel.c_str(), f.host(lib).c_str()) != 0) f.copy(wheel, lib);
  Fixture out;
  std::string tarball = out.root + "/gpu.tar.gz", dir = out.root + "/gpu";
  auto made = run("env -i PATH=/usr/bin:/bin HOME=/home/alice", "capture --load-root-drivers --no-redact --root " + f.root + " " + tarball);
  ASSERT_EQ(made.status, 0) << made.out;
  struct stat st {};
  ASSERT_EQ(::stat(tarball.c_str(), &st), 0);
  EXPECT_LE(st.st_size, 2 << 20) << "the fat binaries stay out of the capture";
  ASSERT_EQ(std::system(("mkdir " + dir + " && tar -xzf " + tarball + " -C " + dir).c_str()), 0);
  auto manifest = json_file(dir + "/.dlready-capture/capture.json");
  ASSERT_TRUE(manifest["gpu_code"].contains(lib)) << manifest["gpu_code"].dump();
  EXPECT_FALSE(manifest["gpu_code"][lib]["sass"].empty());
  expect_replays_to_its_report(dir);
  auto j = json_file(dir + "/.dlready-capture/doctor.json");
  ASSERT_EQ(j["facts"]["gpu_code"].size(), 1u);
  EXPECT_EQ(j["facts"]["gpu_code"][0]["owner"], "torch 2.11.0+cu130");
}

TEST(Capture, DeviceNodesReplayWithTheirOwnersAndModes) {
  Fixture f;
  healthy_gpu_machine(f);
  ASSERT_EQ(::chmod(f.host("/dev/nvidia0").c_str(), 0600), 0);  // root's alone: alice cannot open it
  Fixture out;
  std::string dir = out.root + "/m";
  ASSERT_EQ(run("env -i PATH=/usr/bin:/bin", "capture --load-root-drivers --no-redact --root " + f.root + " " + dir).status, 0);
  auto original = run("env -i PATH=/usr/bin:/bin HOME=/home/alice USER=alice",
                      "doctor --load-root-drivers --no-cache --json --user alice --root " + f.root);
  auto replay = run("env -i PATH=/usr/bin:/bin", "doctor --no-cache --json --user alice --root " + dir);
  auto a = nlohmann::json::parse(original.out), b = nlohmann::json::parse(replay.out);
  EXPECT_EQ(a["facts"]["device_nodes"], b["facts"]["device_nodes"]);
  EXPECT_NE(replay.out.find("device-node-permission"), std::string::npos) << replay.out.substr(0, 3000);
}

TEST(Capture, RedactedCaptureHoldsNoNameAndStillReplays) {
  Fixture f;
  healthy_gpu_machine(f);
  f.write("/etc/hostname", "gpu-node-7.lab.example.com\n");
  Fixture out;
  std::string dir = out.root + "/m";
  auto made = run("env -i PATH=/usr/bin:/bin HOME=/home/alice USER=alice", "capture --load-root-drivers --root " + f.root + " " + dir);
  ASSERT_EQ(made.status, 0) << made.out;
  EXPECT_NE(made.out.find("hidden: "), std::string::npos) << made.out;
  std::string everything = all_text_under(dir);
  ASSERT_NE(everything.find("site-packages"), std::string::npos) << "the venv under the home was captured";
  for (const char* name : {"alice", "gpu-node-7", "lab.example.com"})
    EXPECT_EQ(everything.find(name), std::string::npos) << name;
  EXPECT_TRUE(is_directory(dir + "/home/<user-1>/venv/lib")) << "a home keeps its shape";
  expect_replays_to_its_report(dir);
}

// Issue 62, item 3: a capture made as root said "redacted" yet kept "root", /root and the venv under
// it, which `doctor --redact` hides. Root's home keeps its shape as /<user-N>, one number with the
// account's name, and the copy still replays.
TEST(Capture, RedactedCaptureAsRootHidesRootsHomeAsDoctorDoes) {
  Fixture f;
  healthy_gpu_machine(f);
  add_torch_venv(f, "/root/venv", TorchSpec{});
  const std::string env = "env -i PATH=/usr/bin:/bin HOME=/root USER=root VIRTUAL_ENV=/root/venv";
  auto doctor = run(env, "doctor --redact --json --no-cache --load-root-drivers --root " + f.root);
  EXPECT_EQ(doctor.out.find("/root/venv"), std::string::npos) << "doctor --redact hides root's home";
  Fixture out;
  std::string dir = out.root + "/m";
  auto made = run(env, "capture --load-root-drivers --root " + f.root + " " + dir);
  ASSERT_EQ(made.status, 0) << made.out;
  EXPECT_NE(made.out.find("home director"), std::string::npos) << made.out;
  std::string everything = all_text_under(dir);
  ASSERT_NE(everything.find("site-packages"), std::string::npos) << "the venv under root's home was captured";
  EXPECT_EQ(everything.find("/root/venv"), std::string::npos) << "root's home is hidden";
  for (const char* named : {"\"USER\": \"root\"", "\"user\": \"root\"", "\"name\": \"root\""})
    EXPECT_EQ(everything.find(named), std::string::npos) << named << ": root's name is hidden where it stands alone";
  EXPECT_NE(everything.find("\"root\": "), std::string::npos) << "a key of the schema is not a name";
  EXPECT_TRUE(is_directory(dir + "/<user-1>/venv/lib") || is_directory(dir + "/<user-2>/venv/lib"))
      << "root's home keeps its shape";
  expect_replays_to_its_report(dir);
}

// Issue 62, item 12b: a capture whose own_module is "" (none recorded) replays without a module line
// ("dlready's module: : a directory, not a program").
TEST(Capture, AnEmptyOwnModuleIsNoModule) {
  Fixture f;
  healthy_gpu_machine(f);
  Fixture out;
  std::string dir = out.root + "/m";
  ASSERT_EQ(run("env -i PATH=/usr/bin:/bin", "capture --no-redact --load-root-drivers --root " + f.root + " " + dir).status, 0);
  auto manifest = json_file(dir + "/.dlready-capture/capture.json");
  manifest["own_module"] = "";
  std::ofstream(dir + "/.dlready-capture/capture.json") << manifest.dump(2);
  auto replay = run("env -i PATH=/usr/bin:/bin", "doctor --no-cache --no-color --root " + dir);
  EXPECT_EQ(replay.out.find("dlready's module: :"), std::string::npos) << replay.out;
  EXPECT_EQ(replay.out.find("a directory, not a program"), std::string::npos) << replay.out;
}

// Issue 47, item 4: `snapshot --root <capture> --redact` hid the names of the machine it ran on, not
// of the captured one: a capture made with --no-redact kept its user and home in the snapshot.
TEST(Capture, SnapshotOfACaptureIsRedactedWithTheCapturedNames) {
  Fixture f;
  healthy_gpu_machine(f);
  Fixture out;
  std::string dir = out.root + "/m";
  auto made = run("env -i PATH=/usr/bin:/bin HOME=/home/carol USER=carol LOGNAME=carol",
                  "capture --no-redact --load-root-drivers --root " + f.root + " " + dir);
  ASSERT_EQ(made.status, 0) << made.out;
  auto snap = run("env -i PATH=/usr/bin:/bin HOME=/root USER=root", "snapshot --redact --root " + dir);
  ASSERT_EQ(snap.status, 0) << snap.out;
  ASSERT_FALSE(nlohmann::json::parse(snap.out, nullptr, false).is_discarded()) << snap.out;
  EXPECT_EQ(snap.out.find("carol"), std::string::npos) << "the captured user and home stay hidden";
  auto plain = run("env -i PATH=/usr/bin:/bin HOME=/root USER=root", "snapshot --root " + dir);
  EXPECT_NE(plain.out.find("/home/carol"), std::string::npos) << "without --redact the captured home is there";
}

TEST(Capture, RefusesWhatItCannotDoInOneLine) {
  Fixture f;
  f.write("/taken", "x");
  auto taken = run("", "capture --root " + f.root + " " + f.host("/taken"));
  EXPECT_EQ(taken.status, 2);
  EXPECT_NE(taken.out.find("exists: name a new file or folder (nothing was written)"), std::string::npos) << taken.out;
  EXPECT_EQ(read_text(f.host("/taken")), "x");
  Fixture out;
  ASSERT_EQ(run("", "capture --no-driver-probe --root " + f.root + " " + out.root + "/c").status, 0);
  auto again = run("", "capture --root " + out.root + "/c " + out.root + "/d");
  EXPECT_EQ(again.status, 2);
  EXPECT_NE(again.out.find("is a capture already"), std::string::npos) << again.out;
  // A damaged capture.json: one line that names it, not a raw exception.
  out.write("/c/.dlready-capture/capture.json", "{\"format\": 1, \"children\": [1, 2");
  auto damaged = run("", "doctor --root " + out.root + "/c");
  EXPECT_EQ(damaged.status, 2);
  EXPECT_NE(damaged.out.find("capture.json"), std::string::npos) << damaged.out;
  EXPECT_EQ(std::count(damaged.out.begin(), damaged.out.end(), '\n'), 1) << damaged.out;
}

// Under --root the examined machine chooses the source of facts: a capture made on another platform,
// or a root with another platform's files, is never read as an empty Linux machine ("no NVIDIA GPU").
TEST(Capture, AnotherPlatformsMachineIsNamedNotReadAsLinux) {
  Fixture f;
  healthy_gpu_machine(f);
  Fixture out;
  std::string dir = out.root + "/c";
  ASSERT_EQ(run("", "capture --no-redact --load-root-drivers --root " + f.root + " " + dir).status, 0);
  auto manifest = json_file(dir + "/.dlready-capture/capture.json");
  EXPECT_EQ(manifest.at("platform"), "linux") << "a capture says whose source replays it";
  // A Windows capture holds Windows' answers, which this one lacks; no source of this build reads a
  // FreeBSD machine.
  const std::pair<const char*, std::string> relabelled[] = {
      {"windows", "dlready doctor: " + dir + "/.dlready-capture/capture.json: it names Windows as its platform but "
                  "holds no Windows answers"},
      {"freebsd", "dlready doctor: --root " + dir + " holds a 'freebsd' machine; this dlready reads Linux, macOS, "
                  "Windows machines: run dlready doctor on that machine"}};
  for (const auto& [platform, says] : relabelled) {
    manifest["platform"] = platform;
    out.write("/c/.dlready-capture/capture.json", manifest.dump(2));
    auto replay = run("", "doctor --root " + dir);
    EXPECT_EQ(replay.status, 2) << replay.out;
    EXPECT_NE(replay.out.find(says), std::string::npos) << replay.out;
    EXPECT_EQ(std::count(replay.out.begin(), replay.out.end(), '\n'), 1) << replay.out;
  }
  // A stranger's platform that is not a name: the capture is refused, nothing of it printed.
  manifest["platform"] = "linux\u001b[2J; rm -rf ~";
  out.write("/c/.dlready-capture/capture.json", manifest.dump(2));
  auto hostile = run("", "doctor --root " + dir);
  EXPECT_EQ(hostile.status, 2) << hostile.out;
  EXPECT_NE(hostile.out.find("\"platform\" is not a platform's name"), std::string::npos) << hostile.out;
  EXPECT_EQ(hostile.out.find("rm -rf"), std::string::npos) << hostile.out;
  // No capture: the files say it (a Mac's SystemVersion.plist, read by the macOS source; Windows'
  // System32, whose registry only a capture brings), for snapshot too.
  Fixture mac_files;
  mac_files.write("/System/Library/CoreServices/SystemVersion.plist", "<plist/>");
  auto files = run("", "snapshot --root " + mac_files.root);
  EXPECT_EQ(files.status, 0) << files.out;
  EXPECT_NE(files.out.find("\"id\": \"macos\""), std::string::npos) << files.out;
  Fixture windows_files;
  windows_files.write("/Windows/System32/nvcuda.dll", "MZ");
  auto win = run("", "snapshot --root " + windows_files.root);
  EXPECT_EQ(win.status, 2) << win.out;
  EXPECT_NE(win.out.find("holds a Windows machine's files; Windows is read from a capture: run dlready capture OUT on "
                         "that machine (dlready.exe)"),
            std::string::npos)
      << win.out;
}

// A Windows capture is what the Windows source asked and what Windows answered (docs/json-schema.md:
// capture.json); one written by hand replays on Linux with no wine: an NVIDIA adapter in the
// display class, and no nvcuda.dll in System32.
nlohmann::json windows_capture_manifest() {
  const std::string display = "SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}";
  nlohmann::json registry = nlohmann::json::array({
      {{"hive", "HKLM"}, {"key", display}, {"subkeys", {"0000", "Properties"}}},
      {{"hive", "HKLM"}, {"key", display + "\\0000"}, {"value", "MatchingDeviceId"}, {"text", "pci\\ven_10de&dev_2684&subsys_167c10de"}},
      {{"hive", "HKLM"}, {"key", display + "\\0000"}, {"value", "DriverDesc"}, {"text", "NVIDIA GeForce RTX 4090"}},
      {{"hive", "HKLM"}, {"key", display + "\\0000"}, {"value", "DriverVersion"}, {"text", "32.0.15.6094"}},
      {{"hive", "HKLM"}, {"key", "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion"}, {"value", "ProductName"},
       {"text", "Windows 10 Pro"}},
      {{"hive", "HKLM"}, {"key", "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion"}, {"value", "UBR"}, {"number", 4460}}});
  return {{"format", 1},
          {"platform", "windows"},
          {"environment", {{"USERPROFILE", "C:\\Users\\<user-1>"}}},
          {"windows",
           {{"registry", registry},
            {"is_file", {{"C:\\Windows\\System32\\nvcuda.dll", false}}},
            {"system_directory", "C:\\Windows\\System32"},
            {"system", {{"major", 10}, {"minor", 0}, {"build", 19045}, {"arch", "x86_64"}, {"processors", 16}}}}}};
}

TEST(Capture, AWindowsCaptureWrittenByHandReplaysOnLinux) {
  Fixture capture;
  capture.write("/.dlready-capture/capture.json", windows_capture_manifest().dump(2));
  auto replay = run("", "doctor --json --root " + capture.root);
  EXPECT_EQ(replay.status, 1) << replay.out;
  auto j = nlohmann::json::parse(replay.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << replay.out;
  EXPECT_EQ(j["facts"]["os"]["id"], "windows");
  EXPECT_EQ(j["facts"]["os"]["kernel"], "10.0.19045.4460");
  EXPECT_EQ(j["facts"]["pci"][0]["driver"], "560.94") << "the display driver's version, in nvidia-smi's words";
  std::set<std::string> ids;
  for (const auto& f : j["findings"]) ids.insert(f["id"].get<std::string>());
  EXPECT_TRUE(ids.count("windows-nvcuda-missing")) << j["findings"].dump(1);
  auto text = run("", "doctor --no-color --root " + capture.root);
  EXPECT_NE(text.out.find("Windows 10 Pro, version 10.0.19045.4460, x86_64"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("nvcuda.dll is not in C:\\Windows\\System32"), std::string::npos) << text.out;
}

// A hand-written capture of the commonest Windows failure (WinError 126: c10.dll needs the Visual
// C++ runtime): the DLL's bytes given once as a file, read by the PE reader as the ranges it asks
// for; no System32 listing, yet KERNEL32.dll is not missing — Windows finds its known DLLs first.
TEST(Capture, AHandWrittenWindowsCaptureOfWinError126) {
  auto manifest = windows_capture_manifest();
  const std::string sp = "C:\\Python312\\Lib\\site-packages";
  auto& w = manifest["windows"];
  w["registry"].push_back({{"hive", "HKLM"}, {"key", "SOFTWARE\\Python\\PythonCore"}, {"subkeys", {"3.12"}}});
  w["registry"].push_back({{"hive", "HKLM"}, {"key", "SOFTWARE\\Python\\PythonCore\\3.12\\InstallPath"}, {"value", ""},
                           {"text", "C:\\Python312"}});
  w["exists"] = {{sp, true}, {sp + "\\torch", true}, {sp + "\\torch\\lib", true}};
  w["listings"] = {{sp, {"torch", "torch-2.5.1+cpu.dist-info"}}, {sp + "\\torch\\lib", {"c10.dll"}}};
  std::string dll = build_pe({0x8664, false, false, {"KERNEL32.dll", "VCRUNTIME140_1.dll"}, {}});
  std::string hex;
  for (unsigned char c : dll) hex += "0123456789abcdef"[c >> 4], hex += "0123456789abcdef"[c & 15];
  w["files"] = {{{"path", sp + "\\torch\\version.py"}, {"limit", 65536}, {"text", "__version__ = '2.5.1+cpu'\ncuda = None\n"}},
                {{"path", sp + "\\torch\\lib\\c10.dll"}, {"limit", 0}, {"hex", hex}}};
  Fixture capture;
  capture.write("/.dlready-capture/capture.json", manifest.dump(2));
  auto replay = run("", "doctor --json --root " + capture.root);
  auto j = nlohmann::json::parse(replay.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << replay.out;
  std::set<std::string> ids;
  for (const auto& f : j["findings"]) ids.insert(f["id"].get<std::string>());
  EXPECT_TRUE(ids.count("windows-vc-runtime-missing")) << j["findings"].dump(1);
  EXPECT_FALSE(ids.count("windows-torch-dll-missing")) << "a known DLL is never missing: " << j["findings"].dump(1);
  const auto& check = j["facts"]["windows"]["torch_dlls"][0];
  ASSERT_EQ(check["missing"].size(), 1u) << check.dump(1);
  EXPECT_EQ(check["missing"][0]["name"], "VCRUNTIME140_1.dll");
  EXPECT_EQ(check["torch_machine"], "x64");
  // The machine's own KnownDLLs key, when recorded, is the list: one without kernel32.dll makes it a
  // DLL the folders must hold.
  w["registry"].push_back({{"hive", "HKLM"}, {"key", "SYSTEM\\CurrentControlSet\\Control\\Session Manager\\KnownDLLs"},
                           {"text_values", nlohmann::json::array({nlohmann::json::array({"user32", "user32.dll"})})}});
  capture.write("/.dlready-capture/capture.json", manifest.dump(2));
  // A capture that gives the files alone — no existence checks, no listing of torch\lib: what the
  // capture holds answers them (a DLL's bytes mean it exists; torch\lib lists what is below it).
  w["exists"] = nlohmann::json::object();
  w["listings"].erase(sp + "\\torch\\lib");
  capture.write("/.dlready-capture/capture.json", manifest.dump(2));
  auto files_only = nlohmann::json::parse(run("", "doctor --json --root " + capture.root).out, nullptr, false);
  ASSERT_FALSE(files_only.is_discarded());
  EXPECT_EQ(files_only["facts"]["windows"]["torch_dlls"][0]["missing"].size(), 2u) << files_only["facts"]["windows"].dump(1);
  auto own_run = run("", "doctor --json --root " + capture.root);
  auto own = nlohmann::json::parse(own_run.out, nullptr, false);
  ASSERT_FALSE(own.is_discarded()) << own_run.out;
  EXPECT_EQ(own["facts"]["windows"]["torch_dlls"][0]["missing"].size(), 2u) << own["facts"]["windows"].dump(1);
}

// A stranger's Windows capture: each wrong field is one line that names it, exit 2, nothing of the
// stranger's text sent to the terminal raw.
TEST(Capture, AStrangersWindowsCaptureIsRefusedNamingTheField) {
  struct Case {
    const char* what;
    std::function<void(nlohmann::json&)> spoil;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"registry not a list", [](nlohmann::json& m) { m["windows"]["registry"] = 5; },
       "\"windows.registry\" is an integer, not a list"},
      {"a hive of its own", [](nlohmann::json& m) { m["windows"]["registry"][0]["hive"] = "HKXX\u001b[2J"; },
       "\"windows.registry[0].hive\" is not HKLM or HKCU"},
      {"bytes that are not hex",
       [](nlohmann::json& m) {
         m["windows"]["ranges"] = {{{"path", "C:\\x.dll"}, {"offset", 0}, {"length", 2}, {"hex", "zz"}}};
       },
       "\"windows.ranges[0].hex\" holds a character that is not a hex digit"},
      {"an odd hex", [](nlohmann::json& m) { m["windows"]["files"] = {{{"path", "a"}, {"limit", 9}, {"hex", "abc"}}}; },
       "\"windows.files[0].hex\" has an odd number of hex digits"},
      {"a negative offset",
       [](nlohmann::json& m) { m["windows"]["ranges"] = {{{"path", "a"}, {"offset", -1}, {"length", 2}, {"hex", nullptr}}}; },
       "\"windows.ranges[0].offset\" is -1, out of range"},
      {"an answer of the wrong type", [](nlohmann::json& m) { m["windows"]["exists"] = {{"C:\\a", "yes"}}; },
       "\"windows.exists.C:\\a\" is a string, not true or false"},
      {"too many adapters",
       [](nlohmann::json& m) { m["windows"]["dxgi"] = {{"adapters", nlohmann::json::array()}}; for (int i = 0; i < 65; ++i)
         m["windows"]["dxgi"]["adapters"].push_back(nlohmann::json::object()); },
       "\"windows.dxgi.adapters\" lists more than 64 adapters"},
      {"no answers at all", [](nlohmann::json& m) { m.erase("windows"); },
       "it names Windows as its platform but holds no Windows answers"},
  };
  for (const auto& c : cases) {
    Fixture capture;
    auto manifest = windows_capture_manifest();
    c.spoil(manifest);
    capture.write("/.dlready-capture/capture.json", manifest.dump(2));
    auto replay = run("", "doctor --root " + capture.root);
    EXPECT_EQ(replay.status, 2) << c.what << ": " << replay.out;
    EXPECT_NE(replay.out.find(c.says), std::string::npos) << c.what << ": " << replay.out;
    EXPECT_EQ(std::count(replay.out.begin(), replay.out.end(), '\n'), 1) << c.what << ": " << replay.out;
    EXPECT_EQ(replay.out.find('\x1b'), std::string::npos) << c.what;
  }
  // capture.json a FIFO: never opened for reading, named.
  Fixture fifo;
  ASSERT_EQ(::mkdir((fifo.root + "/.dlready-capture").c_str(), 0755), 0);
  ASSERT_EQ(::mkfifo((fifo.root + "/.dlready-capture/capture.json").c_str(), 0644), 0);
  auto replay = run("timeout 10", "doctor --root " + fifo.root);
  EXPECT_EQ(replay.status, 2) << replay.out;
  EXPECT_NE(replay.out.find("capture.json"), std::string::npos) << replay.out;
}

}  // namespace
}  // namespace dlready::test

namespace dlready::test {
namespace {

// tests/machines/NAME.tar.gz: a real machine's capture; NAME.expected: "finding ID" lines (exactly
// these findings) and "cuda_usable true|false".
TEST(Machines, EachCaptureGivesTheFindingsItMust) {
  std::string dir = std::string(DLREADY_SOURCE_DIR) + "/tests/machines";
  int machines = 0;
  for (const auto& name : list_directory(dir)) {
    if (!ends_with(name, ".tar.gz")) continue;
    ++machines;
    std::string stem = name.substr(0, name.size() - 7);
    Fixture unpacked;
    ASSERT_EQ(std::system(("tar -xzf " + dir + "/" + name + " -C " + unpacked.root).c_str()), 0) << name;
    auto replay = run("env -i PATH=/usr/bin:/bin", "doctor --no-cache --json --root " + unpacked.root);
    auto j = nlohmann::json::parse(replay.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << stem << ": " << replay.out;
    std::set<std::string> want, got;
    std::optional<bool> cuda_usable;
    for (const auto& line : lines(read_text(dir + "/" + stem + ".expected"))) {
      if (starts_with(line, "finding ")) want.insert(trim(line.substr(8)));
      if (starts_with(line, "cuda_usable ")) cuda_usable = trim(line.substr(12)) == "true";
    }
    for (const auto& f : j["findings"]) got.insert(f["id"].get<std::string>());
    EXPECT_EQ(got, want) << stem;
    ASSERT_TRUE(cuda_usable.has_value()) << stem << ".expected says nothing of cuda_usable";
    EXPECT_EQ(j["verdict"]["cuda_usable"], *cuda_usable) << stem;
  }
  EXPECT_GE(machines, 1);
}

}  // namespace
}  // namespace dlready::test
