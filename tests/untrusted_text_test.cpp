// Hostile input, round 4 (issue 57): long text in every reader, the CLI's echoes, capture's
// redaction, export --hashes on an enormous page and with an index password, Mach-O and plist
// garbage, launch's options. Each test goes through the dlready binary (the Mach-O reader's memory
// through the reader itself) and fails on the code before the fix; the numbers in the names are
// the issue's.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "binfmt/macho_reader.hpp"
#include "core/crc32c.hpp"
#include "fixture.hpp"
#include "mac_fixture.hpp"
#include "macho_builder.hpp"
#include "arm_fixture.hpp"

namespace dlready::test {
namespace {

const std::string kBin = DLREADY_BINARY;
const std::string kMegabyte(1 << 20, 'a');

// One clear outcome: an exit status of the enum (never a signal's 128+N), at most `lines` lines.
void expect_clear(const CommandRun& r, const std::string& what, std::initializer_list<int> statuses, int lines = 400) {
  EXPECT_TRUE(std::find(statuses.begin(), statuses.end(), r.status) != statuses.end())
      << what << ": exit " << r.status << "\n" << r.out.substr(0, 2000);
  EXPECT_LE(std::count(r.out.begin(), r.out.end(), '\n'), lines) << what;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << what << ": an escape sequence reached the terminal";
}

// The doctor on `f`, as JSON (which must parse) and as text.
nlohmann::json doctor_json(const Fixture& f, const std::string& what) {
  auto r = run_command(f.env_command() + " " + kBin + " doctor --json --no-cache --root " + f.root + " 2>/dev/null");
  EXPECT_TRUE(r.status == 0 || r.status == 1) << what << ": exit " << r.status;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << what << ": the doctor's JSON does not parse";
  return j;
}

// --- 1. No regex of the standard library on untrusted text: 1 MB lines in every reader ----------

TEST(LongTextRound4, OneMegabyteRequiresDistLinesAreReadWithoutCrashing_1) {
  const std::string metadata = std::string(kSp) + "/torch-2.11.0.dist-info/METADATA";
  for (const std::string& line : {"Requires-Dist: nvidia-" + kMegabyte + "==1.0", "Requires-Dist: nvidia-x==1" + kMegabyte,
                                  "Requires-Dist: nvidia-x[" + kMegabyte + "]==1.0",
                                  "Requires-Dist: nvidia-x" + std::string(1 << 20, ' ') + "==1.0",
                                  "Requires-Dist:" + std::string(1 << 20, ' ')}) {
    Fixture f;
    healthy_gpu_machine(f);
    f.write(metadata, "Metadata-Version: 2.1\nName: torch\nVersion: 2.11.0\n" + line +
                          "\nRequires-Dist: nvidia-cudnn-cu13==9.19.0.56; platform_system == \"Linux\"\n");
    auto j = doctor_json(f, line.substr(0, 40));
    if (j.is_discarded()) continue;
    // The real pin beside the hostile line is still read.
    EXPECT_NE(j.dump().find("\"nvidia-cudnn-cu13\":\"9.19.0.56\""), std::string::npos) << line.substr(0, 40);
    EXPECT_EQ(j.dump().find(kMegabyte.substr(0, 4096)), std::string::npos) << "a 1 MB name became a pin";
  }
}

TEST(LongTextRound4, AOneMegabytePythonVersionInPyvenvCfgIsNoVersion_1) {
  for (const std::string& version : {"3.11." + std::string(1 << 20, '7'), "3." + std::string(1 << 20, '1') + ".7",
                                     std::string(1 << 20, '3')}) {
    Fixture f;
    healthy_gpu_machine(f);
    f.write("/home/alice/venv/pyvenv.cfg", "home = /usr/bin\nversion = " + version + "\n");
    auto j = doctor_json(f, "pyvenv.cfg version of " + std::to_string(version.size()) + " bytes");
    EXPECT_EQ(j.dump().find(std::string(4096, version[5])), std::string::npos) << "the long version was kept";
  }
  Fixture f;  // the reader still reads a real one
  healthy_gpu_machine(f);
  f.write("/home/alice/venv/pyvenv.cfg", "home = /usr/bin\nversion = 3.11.7\n");
  EXPECT_NE(doctor_json(f, "3.11.7").dump().find("3.11.7"), std::string::npos);
}

TEST(LongTextRound4, AOneMegabyteCondaSubdirOnAMacIsRead_1) {
  Fixture f;
  Mac m;
  m.conda_subdir = "osx-arm64";
  write_mac(f, m);
  f.write("/Users/alice/miniforge3/conda-meta/python-3.12.7-h1234.json",
          "{\"name\": \"python\", \"subdir\": \"" + kMegabyte + "\", \"x\": \"" + std::string(1 << 20, ' ') + "\"}");
  auto r = run_command(kBin + " doctor --no-color --root " + f.root + " 2>&1");
  expect_clear(r, "a 1 MB conda subdir", {0, 1});
  f.write("/Users/alice/miniforge3/conda-meta/python-3.12.7-h1234.json",
          "{\"subdir\"" + std::string(200000, ' ') + ":  \"osx-64\"}");  // the reader reads 256 KiB
  auto j = doctor_json(f, "a subdir after 200k spaces");
  EXPECT_NE(j.dump().find("\"osx-64\""), std::string::npos) << "the subdir after the spaces is still read";
}

TEST(LongTextRound4, AOneMegabyteTegraReleaseLineIsRead_1) {
  for (const std::string& text : {"# R" + std::string(1 << 20, '3') + ", REVISION: 4.3\n",
                                  "# R36 (release)" + std::string(1 << 20, ' ') + ", REVISION:" + std::string(1 << 20, ' ') + "4.3",
                                  std::string(1 << 20, 'R') + "\n"}) {
    Fixture f;
    orin(f, pypi_aarch64_cpu_wheel());
    f.write("/etc/nv_tegra_release", text);
    doctor_json(f, "nv_tegra_release of " + std::to_string(text.size()) + " bytes");
  }
  Fixture f;  // a real line after a hostile one is still read (the reader reads 4 KiB)
  orin(f, pypi_aarch64_cpu_wheel());
  f.write("/etc/nv_tegra_release", "R" + std::string(3000, '1') + "R\n# R36 (release), REVISION: 4.3, GCID: 1\n");
  EXPECT_NE(doctor_json(f, "a Tegra release after junk").dump().find("\"36.4.3\""), std::string::npos);
}

// --- 2 and 6. The CLI: long values, escape sequences, cut echoes ---------------------------------

TEST(LongTextRound4, ALongValueForARangeCheckedOptionIsOneCutLine_2) {
  for (const std::string& args : {"train --epochs " + std::string(100000, 'x'), "launch --max-restarts " +
                                  std::string(100000, '7') + " -- true", "train --epochs " + std::string(20000, 'y')}) {
    auto r = run_command(kBin + " " + args + " 2>&1");
    expect_clear(r, args.substr(0, 30), {2}, 1);
    EXPECT_LT(r.out.size(), 400u) << "the whole value was echoed: " << r.out.size() << " bytes";
    EXPECT_NE(r.out.find("…"), std::string::npos) << r.out;
  }
  auto r = run_command(kBin + " train --epochs 0 2>&1");
  EXPECT_NE(r.out.find("dlready train --epochs: 0 is out of range (1 to"), std::string::npos) << r.out;
  r = run_command(kBin + " train --epochs one 2>&1");
  EXPECT_NE(r.out.find("'one' is not a whole number"), std::string::npos) << r.out;
}

TEST(LongTextRound4, TypedEscapeSequencesNeverReachTheTerminal_6) {
  const std::string esc = "$'\\e[31mRED\\e]0;title\\a'";
  for (const std::string& args :
       {"doctor --bogus" + esc, esc, "module " + esc, "audit " + esc, "train --epochs 1" + esc,
        "setup --dry-run --offline --python 3.11 --gpu " + esc, "setup --dry-run --offline --python " + esc,
        "setup --dry-run --offline --python 3.11 --gpu sm_90 --driver " + esc,
        "launch --nproc-per-node " + esc + " -- true", "launch --standalone --master-port 1 --nproc-per-node 1 -- " + esc,
        "launch --master-addr " + esc + " --nproc-per-node 1 -- true", "verify --device " + esc}) {
    auto r = run_command("bash -c \"" + kBin + " " + args + "\" 2>&1 </dev/null");
    expect_clear(r, args, {1, 2, 127});
    EXPECT_NE(r.out.find("\\x1b"), std::string::npos) << args << ": the escape is shown as \\x1b: " << r.out;
  }
}

TEST(LongTextRound4, TheUsageLineSaysDlreadyNotTheWayItWasStarted_6) {
  auto r = run_command("bash -c \"exec -a $'/tmp/\\e[31mevil' " + kBin + " doctor --help\" 2>&1");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out.substr(0, 300);
  EXPECT_NE(r.out.find("dlready doctor"), std::string::npos) << r.out.substr(0, 300);
}

TEST(LongTextRound4, HelpForAnUnknownCommandIsAUsageError_7) {
  auto r = run_command(kBin + " help doctr 2>&1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("no command 'doctr' (did you mean 'doctor'?)"), std::string::npos) << r.out;
  r = run_command(kBin + " help doctor train 2>&1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("'train' is not a subcommand of dlready doctor"), std::string::npos) << r.out;
  r = run_command(kBin + " help audit verify 2>&1");  // a real subcommand still has its help
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(run_command(kBin + " help doctor >/dev/null 2>&1").status, 0);
}

// --- 3. capture redacts a 120k URL-like variable, linearly, and writes its archive ---------------

TEST(LongTextRound4, CaptureRedactsALongUrlVariableAndWritesItsArchive_3) {
  Fixture f, out;
  healthy_gpu_machine(f);
  const std::string url = "http://" + std::string(120000, 'a');
  for (const std::string& value : {url, "http://" + std::string(60000, 'a') + ":" + std::string(60000, 'b') + "@host/", "http://u:secretpw@" +
                                   std::string(120000, 'c'), std::string(60000, ':') + std::string(60000, 'a')}) {
    std::filesystem::remove_all(out.root + "/c");
    auto r = run_command(f.env_command() + " PIP_INDEX_URL='" + value + "' " + kBin + " capture --root " + f.root +
                         " " + out.root + "/c 2>&1");
    expect_clear(r, "capture with PIP_INDEX_URL of " + std::to_string(value.size()) + " bytes", {0, 1}, 40);
    EXPECT_TRUE(std::filesystem::exists(out.root + "/c/.dlready-capture/capture.json")) << r.out;
    auto manifest = read_text(out.root + "/c/.dlready-capture/capture.json");
    EXPECT_EQ(manifest.find("secretpw"), std::string::npos) << "the URL's password was kept";
  }
}

// --- 4 and 5. export --hashes: linear in the page, and the index's password stays with pip -------

// A snapshot of the healthy machine (its pins: torch==2.11.0 and two nvidia-* from PyPI).
std::string healthy_snapshot(const Fixture& work) {
  Fixture machine;
  healthy_gpu_machine(machine);
  std::string snap = work.root + "/snap.json";
  EXPECT_EQ(run_command("env VIRTUAL_ENV=/home/alice/venv " + kBin + " snapshot --root " + machine.root +
                        " --no-driver-probe --out " + snap + " >/dev/null 2>&1").status, 0);
  return snap;
}

// The page `url` as export finds it in its day's cache (setup/index_fetch's entry format).
void cache_page(Fixture& work, const std::string& url, const std::string& page) {
  char name[32];
  std::snprintf(name, sizeof name, "%08x.page", crc32c(url));
  work.mkdir("/cache/dlready/index");
  std::ofstream(work.root + "/cache/dlready/index/" + name)
      << "dlready-index 1 " << std::time(nullptr) << " " << url << "\n" << page;
}

std::string json_page(size_t files) {
  nlohmann::json list = nlohmann::json::array();
  for (size_t i = 0; i < files; ++i) {
    char sha[65];
    std::snprintf(sha, sizeof sha, "%064zx", i);
    list.push_back({{"filename", "torch-2.11.0-cp311-cp311-manylinux_2_" + std::to_string(i) + "_x86_64.whl"},
                    {"hashes", {{"sha256", sha}}}});
  }
  return nlohmann::json({{"files", list}}).dump();
}

TEST(IndexRound4, HashesOfA200kFilePageAreFoundInLinearTime_4) {
  Fixture work;
  const std::string snap = healthy_snapshot(work), index = "http://127.0.0.1:9/simple/";
  cache_page(work, index + "torch/", json_page(200000));
  auto start = std::chrono::steady_clock::now();
  auto r = run_command("env -u DLREADY_OFFLINE XDG_CACHE_HOME=" + work.root + "/cache " + kBin + " export " + snap +
                       " --hashes --index-url " + index + " --out " + work.root + "/lock.txt 2>&1");
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Not a benchmark: a bound ten times the measured time, where the quadratic code took about 60 s.
  EXPECT_LT(seconds, 20.0) << r.out.substr(0, 500);
  EXPECT_EQ(r.status, 1) << "the nvidia-* pages are not there: " << r.out.substr(0, 500);
  auto lock = read_text(work.root + "/lock.txt");
  EXPECT_NE(lock.find("torch==2.11.0 \\\n    --hash=sha256:"), std::string::npos) << lock.substr(0, 500);
  EXPECT_EQ(std::count(lock.begin(), lock.end(), '\n') > 200000, true);
}

TEST(IndexRound4, TheIndexPasswordIsNeverWritten_5) {
  Fixture work;
  const std::string snap = healthy_snapshot(work), index = "http://alice:s3cr3tpw@127.0.0.1:9/simple/";
  cache_page(work, index + "torch/", json_page(2));
  for (const std::string& how : {"PIP_INDEX_URL=" + index + " " + kBin + " export " + snap + " --hashes",
                                 kBin + " export " + snap + " --hashes --index-url " + index}) {
    auto r = run_command("env -u DLREADY_OFFLINE XDG_CACHE_HOME=" + work.root + "/cache " + how + " --out " +
                         work.root + "/lock.txt 2>&1");
    EXPECT_EQ(r.status, 1) << r.out;
    auto lock = read_text(work.root + "/lock.txt");
    EXPECT_NE(lock.find("--hash=sha256:"), std::string::npos) << "the cached page was read: " << lock;
    EXPECT_NE(lock.find("http://127.0.0.1:9/simple/"), std::string::npos) << lock;
    EXPECT_EQ(lock.find("s3cr3tpw"), std::string::npos) << lock;
    EXPECT_EQ(r.out.find("s3cr3tpw"), std::string::npos) << r.out;
  }
  // setup's plan prints the index it was given the same way.
  auto plan = run_command("env -u DLREADY_OFFLINE PIP_INDEX_URL=" + index + " XDG_CACHE_HOME=" + work.root +
                          "/cache " + kBin + " setup --dry-run --offline --python 3.11 --gpu sm_90 --driver 580.65.06 2>&1");
  EXPECT_EQ(plan.out.find("s3cr3tpw"), std::string::npos) << plan.out;
}

// --- 8, 9, 10. Mach-O and plists from a Mac's capture --------------------------------------------

// A ByteReader over `bytes` that counts what it hands out.
struct CountingReader {
  const std::string& bytes;
  uint64_t handed = 0;
  ByteReader reader() {
    return [this](uint64_t offset, size_t len) -> std::optional<std::string> {
      if (offset > bytes.size()) return std::string();
      std::string part = bytes.substr(offset, len);
      handed += part.size();
      return part;
    };
  }
};

TEST(MachORound4, OverlappingSlicesWithHugeNamesAreReadOnceAndNotKept_8) {
  const std::string name(15u << 20, 'n');  // the load commands stay under the reader's 16 MiB
  std::string thin = macho_thin({kArm64, 6, 0x000B0000, {"/usr/lib/libc++.1.dylib", name}, {}, {}});
  // A universal file of 16 slices, all at the same offset.
  std::string fat;
  put_big_endian32(fat, 0xCAFEBABE);
  put_big_endian32(fat, 16);
  for (int i = 0; i < 16; ++i)
    for (uint32_t v : {kArm64, 0u, 4096u, static_cast<uint32_t>(thin.size()), 12u}) put_big_endian32(fat, v);
  fat.resize(4096, '\0');
  fat += thin;
  CountingReader counting{fat};
  auto r = parse_macho(counting.reader());
  ASSERT_TRUE(r.file) << r.error;
  ASSERT_EQ(r.file->slices.size(), 16u);
  EXPECT_LT(counting.handed, 2 * fat.size()) << "each slice read the same 16 MiB again";
  for (const auto& s : r.file->slices)
    EXPECT_EQ(s.dylibs, std::vector<std::string>{"/usr/lib/libc++.1.dylib"}) << "a 16 MiB name was kept";
}

TEST(MachORound4, AGarbageProductVersionIsUnknownNeverAFinding_9) {
  for (const std::string& version : std::vector<std::string>{"&b;&b;&b;", std::string(60000, '9'), "14.5\x1b[31m", "1.2.3.4.5"}) {
    Fixture f;
    Mac m;
    m.version = version;
    m.torch_minos = 0x000E0000;  // built for macOS 14
    write_mac(f, m);
    auto r = run_command(kBin + " doctor --no-color --root " + f.root + " 2>&1");
    expect_clear(r, "ProductVersion " + version.substr(0, 20), {0, 1});
    EXPECT_EQ(r.out.find("mac-torch-needs-newer-macos"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("this Mac runs macOS &b"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find(std::string(100, '9')), std::string::npos) << "the version was printed whole";
  }
}

TEST(MachORound4, AFifoWhereTorchShouldBeIsNamedOnce_10) {
  Fixture f;
  write_mac(f, Mac{});
  const std::string lib = "/opt/homebrew/lib/python3.12/site-packages/torch/lib/libtorch_cpu.dylib";
  f.remove(lib);
  ASSERT_EQ(::mkfifo(f.host(lib).c_str(), 0644), 0);
  auto r = run_command("timeout 20 " + kBin + " doctor --no-color --root " + f.root + " 2>&1");
  expect_clear(r, "a FIFO as libtorch_cpu.dylib", {0, 1});
  EXPECT_NE(r.out.find(lib + ": a FIFO, not a file"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(lib + ": " + f.root), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("libtorch_cpu.dylib: /"), std::string::npos) << "the path was printed twice: " << r.out;
}

// --- 11. launch's --standalone with another --master-addr ----------------------------------------

TEST(LaunchRound4, StandaloneRefusesAnotherMasterAddress_11) {
  auto r = run_command(kBin + " launch --standalone --master-addr 10.0.0.1 --nproc-per-node 1 -- true 2>&1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--standalone meets on 127.0.0.1, not --master-addr 10.0.0.1"), std::string::npos) << r.out;
  EXPECT_EQ(run_command(kBin + " launch --standalone --nproc-per-node 1 -- true 2>&1").status, 0);
}

}  // namespace
}  // namespace dlready::test
