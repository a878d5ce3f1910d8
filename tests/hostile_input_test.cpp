// Hostile input to the doctor half: bytes that are not UTF-8, files that are not regular, unreadable
// roots. Each gets one clear line and the right exit status, never an abort.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "os/atomic_file.hpp"
#include "core/json_text.hpp"
#include "os/root_fs.hpp"
#include "core/text.hpp"
#include "data/idx.hpp"
#include "diagnose/rules.hpp"
#include "fixture.hpp"
#include "report/render.hpp"

namespace dlready::test {
namespace {

struct Run {
  int status;
  std::string out;
};

// `sh -c` with `setup` before the dlready command (so variables can carry any byte via printf).
Run run_sh(const std::string& setup, const std::string& args, bool merge_stderr = true) {
  std::string cmd = setup + " " + std::string(DLREADY_BINARY) + " " + args + (merge_stderr ? " 2>&1" : " 2>/dev/null");
  FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  int st = ::pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), out};
}

const std::string kBad = "\xff\xfe\xc3";  // not UTF-8: a lone continuation start and a cut sequence

TEST(NonUtf8, EveryRendererWritesValidJsonAndText) {
  Fixture f;
  healthy_gpu_machine(f);
  f.env["CUDA_VISIBLE_DEVICES"] = kBad;
  f.env["LD_LIBRARY_PATH"] = "/opt/" + kBad + "/lib";
  f.env["VIRTUAL_ENV"] = "/home/alice/venv";
  f.write("/proc/driver/nvidia/version",
          "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build  (" + kBad + ")\n");
  f.write("/home/alice/venv/lib/python3.11/site-packages/" + kBad + "-1.0.dist-info/METADATA", "Name: x\n");
  auto facts = f.facts();
  auto r = diagnose(facts);
  std::string text;
  ASSERT_NO_THROW(text = render_json(facts, r));
  auto j = nlohmann::json::parse(text);  // valid UTF-8 JSON: the bytes became U+FFFD
  EXPECT_NE(j["facts"]["environment"]["CUDA_VISIBLE_DEVICES"].get<std::string>().find("\xef\xbf\xbd"),
            std::string::npos);
  EXPECT_NO_THROW(render_markdown(facts, r));
  EXPECT_NO_THROW(render_text(facts, r, {false}));
}

TEST(NonUtf8, DoctorJsonAndSnapshotDoNotAbort) {
  Fixture f;
  healthy_gpu_machine(f);
  std::string env = "CUDA_VISIBLE_DEVICES=\"$(printf '\\377\\376')\" LD_LIBRARY_PATH=\"/x/$(printf '\\377')\"";
  for (const char* cmd : {"doctor --json --root ", "snapshot --root "}) {
    auto r = run_sh(env, cmd + f.root, /*merge_stderr=*/false);
    EXPECT_LT(r.status, 2) << cmd << "\n" << r.out;
    EXPECT_TRUE(nlohmann::json::accept(r.out)) << r.out;
  }
}

TEST(NonUtf8, ALibTorchCommandRefusesAPathItCannotHandOnUnchanged) {
  auto r = run_sh("", "train --out \"/tmp/$(printf '\\377')\"");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("not valid UTF-8"), std::string::npos) << r.out;
}

TEST(NonUtf8, ValidatorAgreesWithTheStandard) {
  EXPECT_TRUE(is_valid_utf8("plain ascii"));
  EXPECT_TRUE(is_valid_utf8("fünf € 𝄞"));
  EXPECT_FALSE(is_valid_utf8("\xff"));
  EXPECT_FALSE(is_valid_utf8("\xc3"));          // cut
  EXPECT_FALSE(is_valid_utf8("\xc0\xaf"));      // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));  // surrogate
  EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));  // past U+10FFFF
}

// --- Files that are not regular, or larger than their kind can be (defect 3) ---

TEST(NotARegularFile, SnapshotsFromDevicesAndFifosAreRefusedAtOnce) {
  Fixture f;
  healthy_gpu_machine(f);
  std::string good = f.root + "/good.json";
  auto snap = run_sh("", "snapshot --no-driver-probe --root " + f.root + " --out " + good);
  ASSERT_EQ(snap.status, 0) << snap.out;
  ASSERT_EQ(::mkfifo((f.root + "/fifo").c_str(), 0600), 0);
  for (const std::string& bad : {std::string("/dev/zero"), f.root + "/fifo", f.root}) {
    auto d = run_sh("timeout 20", "diff " + good + " " + bad);
    EXPECT_EQ(d.status, 2) << bad << ": " << d.out;
    EXPECT_NE(d.out.find("not a snapshot"), std::string::npos) << d.out;
    auto e = run_sh("timeout 20", "export " + bad);
    EXPECT_EQ(e.status, 2) << bad << ": " << e.out;
  }
}

TEST(NotARegularFile, IdxFilesThatAreDevicesOrBombsAreRefusedWithinTheirSize) {
  Fixture f;
  f.link("/train-images-idx3-ubyte", "/dev/zero");
  auto r = read_idx_file(f.root + "/train-images-idx3-ubyte");
  EXPECT_FALSE(r.array);
  EXPECT_NE(r.error.find("a character device, not an IDX file"), std::string::npos) << r.error;
  // A gzip stream whose IDX header declares 60000x28x28 (47 MB) but inflates to 256 MiB of zeros.
  std::string plain("\0\0\x08\x03", 4);
  for (uint32_t d : {60000u, 28u, 28u})
    for (int k = 3; k >= 0; --k) plain.push_back(static_cast<char>((d >> (8 * k)) & 0xff));
  plain.resize(256u << 20, '\0');
  uLongf bound = compressBound(static_cast<uLong>(plain.size()));
  std::string packed(bound, '\0');
  z_stream z{};
  ASSERT_EQ(deflateInit2(&z, 1, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY), Z_OK);
  z.next_in = reinterpret_cast<Bytef*>(plain.data());
  z.avail_in = static_cast<uInt>(plain.size());
  z.next_out = reinterpret_cast<Bytef*>(packed.data());
  z.avail_out = static_cast<uInt>(packed.size());
  ASSERT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  packed.resize(z.total_out);
  deflateEnd(&z);
  plain.clear();
  plain.shrink_to_fit();
  auto t0 = std::chrono::steady_clock::now();
  std::string err;
  EXPECT_FALSE(gunzip(packed, size_t{1} << 31, err));
  EXPECT_NE(err.find("more data than its header declares (47040016 bytes)"), std::string::npos) << err;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
}

// --- Atomic replace never destroys what is not a regular file (defect 5) ---

TEST(AtomicWrite, ATargetThatIsNotARegularFileIsLeftAlone) {
  Fixture f;
  ASSERT_EQ(::mkfifo((f.root + "/fifo").c_str(), 0600), 0);
  f.mkdir("/dir");
  for (const std::string& target : {f.root + "/fifo", f.root + "/dir", std::string("/dev/full")}) {
    struct stat before {};
    ASSERT_EQ(::stat(target.c_str(), &before), 0);
    auto st = write_file_atomically(target, "x");
    EXPECT_FALSE(st.ok()) << target;
    struct stat after {};
    ASSERT_EQ(::stat(target.c_str(), &after), 0);
    EXPECT_EQ(before.st_mode & S_IFMT, after.st_mode & S_IFMT) << target << " was replaced";
  }
  Fixture g;
  healthy_gpu_machine(g);
  auto r = run_sh("", "snapshot --no-driver-probe --root " + g.root + " --out " + f.root + "/fifo");
  EXPECT_EQ(r.status, 2) << "an unusable path is a usage error (issue 62, item 6)\n" << r.out;
  EXPECT_NE(r.out.find("a FIFO; nothing written"), std::string::npos) << r.out;
}

// --- An unreadable --root is a usage error, not "no GPU" (defect 7) ---

TEST(UnreadableRoot, IsExitStatus2NotAnEmptyMachine) {
  Fixture f;
  healthy_gpu_machine(f);
  ASSERT_EQ(::chmod(f.root.c_str(), 0700), 0);
  // Root reads everything: run the doctor as nobody, who cannot enter the 0700 directory.
  std::string as_other = ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups" : "";
  if (::geteuid() != 0) {
    ASSERT_EQ(::chmod(f.root.c_str(), 0), 0);
  }
  auto r = run_sh(as_other, "doctor --no-driver-probe --root " + f.root);
  ::chmod(f.root.c_str(), 0755);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("is not a readable directory"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("no-nvidia-gpu"), std::string::npos) << r.out;
}

// --- A damaged library found in an environment is a finding, not a --binary error (defect 8) ---

TEST(DamagedLibrary, TheDoctorReportsItAndCarriesOn) {
  Fixture f;
  healthy_gpu_machine(f);
  std::string elf(64, '\0');
  elf.replace(0, 4, "\x7f" "ELF");
  elf[4] = 2, elf[5] = 1, elf[6] = 1;
  elf[0x36] = '\xff', elf[0x37] = '\xff';  // e_phentsize 0xFFFF
  elf[0x38] = 1;
  f.write("/home/alice/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so", elf);
  auto r = run_sh("VIRTUAL_ENV=/home/alice/venv", "doctor --no-driver-probe --root " + f.root);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("[torch-library-damaged]"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("--binary"), std::string::npos) << r.out;
}

// Text read from the machine (here an os-release under --root, as a sparse or hostile file would
// hold it) reaches the terminal with its control characters escaped and its length bounded.
TEST(TerminalSafety, FileTextInTheDoctorsReportIsEscaped) {
  Fixture f;
  healthy_gpu_machine(f);
  f.write("/etc/os-release", "ID=debian\nPRETTY_NAME=\"Evil\x1b[2J\rdlready: all fine" + std::string(200000, '\0') + "\"\n");
  auto r = run_sh("VIRTUAL_ENV=/home/alice/venv", "doctor --no-driver-probe --no-color --root " + f.root);
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out.substr(0, 2000);
  EXPECT_EQ(r.out.find('\r'), std::string::npos);
  EXPECT_EQ(r.out.find(std::string(1, '\0')), std::string::npos);
  EXPECT_NE(r.out.find("Evil\\x1b[2J\\x0ddlready: all fine"), std::string::npos) << r.out.substr(0, 2000);
  EXPECT_LT(r.out.size(), 64u << 10) << "200,000 NUL bytes printed";
}

// --- Wrong flags are refused at the command line (defect 9) ---

TEST(TrainFlags, NanLearningRateAndNegativeSeedAreUsageErrors) {
  for (const char* args : {"train --lr nan", "train --lr inf", "train --lr -1", "train --seed -5"}) {
    auto r = run_sh("", args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.out;
  }
}

// --- One rule for the same mistake across commands (defect 10) ---

TEST(Consistency, NotASnapshotIsAUsageErrorForDiffAndExportAlike) {
  Fixture f;
  f.write("/bench.json", "{\"schema\": \"dlready.bench/1\"}\n");
  auto d = run_sh("", "diff " + f.root + "/bench.json " + f.root + "/bench.json");
  auto e = run_sh("", "export " + f.root + "/bench.json");
  EXPECT_EQ(d.status, 2) << d.out;
  EXPECT_EQ(e.status, 2) << e.out;
}

TEST(Consistency, ADirectoryIsCalledADirectory) {
  Fixture f;
  f.mkdir("/d");
  auto b = run_sh("", "doctor --no-driver-probe --binary " + f.root + "/d");
  EXPECT_EQ(b.status, 2) << b.out;
  EXPECT_NE(b.out.find("a directory, not a program or library"), std::string::npos) << b.out;
  auto s = run_sh("", "export " + f.root + "/d");
  EXPECT_EQ(s.status, 2) << s.out;
  EXPECT_NE(s.out.find("a directory, not a snapshot"), std::string::npos) << s.out;
}

TEST(Consistency, AHugePasswdIsNotAMissingUser) {
  Fixture f;
  add_base_system(f);
  std::string passwd(5u << 20, 'x');
  passwd += ":x:1:1::/:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\n";
  f.write("/etc/passwd", passwd);
  auto r = run_sh("", "doctor --no-driver-probe --user alice --root " + f.root);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(r.out.find("is not in"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bytes, more than"), std::string::npos) << r.out;
}

// JSON from outside: a document nested past the limit, or with a key twice, is refused with the
// reason; a normal one parses. The deep one would have exhausted the stack of a recursive walk.
TEST(BoundedJson, DeepDocumentsAndDuplicateKeysAreRefused) {
  std::string why;
  EXPECT_TRUE(parse_json_bounded(R"({"a":[1,{"b":"[[[["}],"c":"x\"{"})", &why).is_object()) << why;
  auto deep = parse_json_bounded(std::string(200000, '[') + std::string(200000, ']'), &why);
  EXPECT_TRUE(deep.is_discarded());
  EXPECT_EQ(why, "nested deeper than 64 levels");
  EXPECT_TRUE(parse_json_bounded(std::string(64, '[') + std::string(64, ']')).is_array());
  EXPECT_TRUE(parse_json_bounded(std::string(65, '[') + std::string(65, ']')).is_discarded());
  auto dup = parse_json_bounded(R"({"w":{"dtype":"F32"},"w":{"dtype":"F64"}})", &why);
  EXPECT_TRUE(dup.is_discarded());
  EXPECT_EQ(why, "the key \"w\" appears twice in one object");
  EXPECT_TRUE(parse_json_bounded(R"({"a":{"x":1},"b":{"x":2}})").is_object()) << "the same key in two objects is fine";
  EXPECT_TRUE(parse_json_bounded("{not json", &why).is_discarded());
  EXPECT_EQ(why, "not JSON");
}

TEST(Printable, ControlCharactersAndBrokenUtf8AreEscaped) {
  EXPECT_EQ(printable("plain ✓ text"), "plain ✓ text");
  EXPECT_EQ(printable("a\x1b[2J\rb\n"), "a\\x1b[2J\\x0db\\x0a");
  EXPECT_EQ(printable(std::string("x\0y", 3)), "x\\x00y");
  EXPECT_EQ(printable("\xff\xc3"), "\\xff\\xc3");
  EXPECT_EQ(printable("\xc2\x9b" "31m"), "\\xc2\\x9b31m") << "a C1 control (CSI) is escaped too";
  EXPECT_EQ(printable(std::string(196 * 1024, '\0'), 16).size(), 16u + std::string("…").size());
}

TEST(ShellQuote, EveryPrintedArgumentReadsBackUnchanged) {
  EXPECT_EQ(shell_quote("/home/alice/venv"), "/home/alice/venv");
  EXPECT_EQ(shell_quote("/tmp/x; rm -rf /tmp/y"), "'/tmp/x; rm -rf /tmp/y'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("$(id)"), "'$(id)'");
  EXPECT_EQ(shell_quote(""), "''");
  for (std::string arg : {std::string("/tmp/x; rm -rf /tmp/y"), std::string("torchvision;id"), std::string("$(id)`id`"),
                          std::string("a'b\"c"), std::string("two\nlines")}) {
    auto back = command_output("printf '%s' " + shell_quote(arg));
    EXPECT_EQ(back, arg) << shell_quote(arg);
  }
}

// doctor --root: a link inside the root is followed inside it, as a chroot would; an absolute one
// never reaches the host's own files.
TEST(RootLinks, AbsoluteLinksResolveInsideTheRoot) {
  Fixture f;
  char host_dir[] = "/tmp/dlready-host-XXXXXX";
  ASSERT_TRUE(::mkdtemp(host_dir));
  std::string host_file = std::string(host_dir) + "/os-release";
  { std::ofstream(host_file) << "ID=host-file\n"; }
  f.link("/etc/os-release", host_file);
  RootFs fs(f.root);
  EXPECT_FALSE(fs.read("/etc/os-release")) << "read the host's file through an absolute link";
  f.write(host_file, "ID=inside-the-root\n");  // the same path inside the root
  EXPECT_EQ(fs.read("/etc/os-release").value_or(""), "ID=inside-the-root\n");
  f.link("/etc/loadavg-link", "/proc/loadavg");
  EXPECT_FALSE(fs.read("/etc/loadavg-link"));
  std::filesystem::remove_all(host_dir);
}

}  // namespace
}  // namespace dlready::test
