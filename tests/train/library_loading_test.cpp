// How `dlready` loads its LibTorch module and the CUDA libraries under it, through the real
// binary (label "torch"): the H200's crash in cuDNN hid behind tests that linked the code directly.
//  - Whatever the machine has in ld.so.cache or LD_LIBRARY_PATH, every CUDA library dlready loads
//    is the PyTorch wheel's copy (decoys with the wheel's sonames, built by the suite, must never
//    be picked).
//  - A fatal signal becomes a diagnosis: verify's check is a FAIL naming the signal and the
//    library, the other checks still run; train names its stage and dies of the same signal.
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "core/text.hpp"
#include "os/posix_fs.hpp"
#include "fixture.hpp"

namespace dlready::test {
namespace {

namespace fs = std::filesystem;
// Directories are removed with core/posix_fs's remove_tree: libtorch.so (linked into this test
// program before libstdc++) exports its own std::filesystem::remove_all, which crashes here.

const std::string kBinary = DLREADY_BINARY;
const std::string kDecoys = DLREADY_DECOY_DIR;

// The folder the module's CUDA libraries must come from (site-packages/nvidia), from the module's
// own run path; "" for a CPU-only LibTorch.
std::string wheel_nvidia_dir() {
  auto out = command_output("readelf -d " + fs::path(kBinary).parent_path().string() + "/libdlready_train.so");
  std::smatch m;
  static const std::regex re("(/[^:\\]]*/nvidia)/[^/:\\]]+/lib");
  return std::regex_search(out, m, re) ? m[1].str() : "";
}

struct Loaded {
  std::string output;
  std::vector<std::string> objects;  // every object whose initialiser ran (LD_DEBUG=libs)
  int status = -1;
};

Loaded run_with_loader_trace(const std::string& prefix, const std::string& args) {
  char dir[] = "/tmp/dlready-loading-XXXXXX";
  Loaded r;
  if (!::mkdtemp(dir)) return r;
  std::string log = std::string(dir) + "/log";
  r.status = wait_exit(start_in_background(prefix + " LD_DEBUG=libs " + kBinary + " " + args, log), 300);
  r.output = read_text(log);
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) {
    auto at = line.find("calling init: ");
    if (at != std::string::npos) r.objects.push_back(line.substr(at + 14));
  }
  remove_tree(dir);
  return r;
}

bool is_cuda_library(const std::string& path) {
  auto name = fs::path(path).filename().string();
  for (const char* p : {"libcuda", "libcublas", "libcudnn", "libnvrtc", "libnvJitLink", "libcusparse", "libcufft",
                        "libcurand", "libcusolver", "libnccl", "libcufile", "libnvshmem", "libcupti"})
    if (name.rfind(p, 0) == 0) return true;
  return false;
}

// The libraries cuDNN, NVRTC and CUPTI open by name only when CUDA work needs them.
constexpr const char* kOpenedForCudaWork[] = {"libcudnn_graph.so.9", "libcudnn_cnn.so.9", "libnvrtc.so.13"};

// How a run loads LibTorch: the CPU module (no CUDA library but libtorch_cpu's own), the main module for a run
// that cannot use CUDA (LibTorch's CUDA half, without what CUDA work opens), or for one that may.
enum class Run { cpu_module, main_module_cpu, cuda };

// Every CUDA library loaded is the wheel's copy and no decoy ran; a run that may use CUDA has
// cuDNN's sub-libraries and NVRTC among them (preloaded by absolute path before cuDNN could open
// them by name), the main module's CPU run none of them, the CPU module's only libtorch_cpu's two.
void expect_only_wheel_copies(const Loaded& r, const std::string& wheel, Run run) {
  const bool cuda_run = run == Run::cuda;
  if (!cuda_run) ASSERT_EQ(r.status, 0) << r.output.substr(r.output.size() > 4000 ? r.output.size() - 4000 : 0);
  EXPECT_EQ(r.output.find("DECOY LIBRARY LOADED"), std::string::npos) << "a decoy was loaded";
  std::set<std::string> cuda;
  for (const auto& o : r.objects) {
    if (!is_cuda_library(o)) continue;
    cuda.insert(fs::path(o).filename().string());
    // libtorch_cpu's own run path ($ORIGIN/../../nvidia/...) finds its two by a path with "..".
    EXPECT_EQ(fs::path(o).lexically_normal().string().rfind(wheel, 0), 0u) << o << " is not the wheel's copy";
  }
  if (run == Run::cpu_module) {
    // Only what libtorch_cpu itself links (its profiler's CUPTI and the CUDA runtime), no CUDA
    // library of LibTorch's CUDA half.
    for (const auto& name : cuda)
      EXPECT_TRUE(name == "libcudart.so.13" || name == "libcupti.so.13") << name << " was loaded by the CPU module's run";
    for (const auto& o : r.objects) EXPECT_EQ(o.find("libtorch_cuda"), std::string::npos) << o;
    return;
  }
  if (!fs::exists(wheel + "/cudnn/lib/libcudnn.so.9")) return;
  for (const char* must : {"libcudart.so.13", "libcublasLt.so.13", "libcudnn.so.9"})
    EXPECT_TRUE(cuda.count(must)) << must << " was not loaded";
  for (const char* lazy : kOpenedForCudaWork)
    EXPECT_EQ(cuda.count(lazy), cuda_run ? 1u : 0u) << lazy << (cuda_run ? " was not loaded" : " was loaded for a CPU run");
}

TEST(CudaLibraryLoading, LdLibraryPathDecoysNeverReplaceTheWheelsLibraries) {
  auto wheel = wheel_nvidia_dir();
  if (wheel.empty()) GTEST_SKIP() << "this LibTorch loads no CUDA library";
  const std::string dir = fs::path(kBinary).parent_path().string();
  ASSERT_TRUE(fs::exists(dir + "/libdlready_train_cpu.so")) << "a CUDA LibTorch's build makes the CPU module";
  auto r = run_with_loader_trace("env LD_LIBRARY_PATH=" + kDecoys, "verify --device cpu");
  expect_only_wheel_copies(r, wheel, Run::cpu_module);
  // The main module named alone (DLREADY_TRAIN_MODULE; as where no CPU module is beside it) loads
  // LibTorch's CUDA half for the same run: the wheel's copies, without what CUDA work opens.
  auto main = run_with_loader_trace("env LD_LIBRARY_PATH=" + kDecoys + " DLREADY_TRAIN_MODULE=" + dir +
                                    "/libdlready_train.so", "verify --device cpu");
  expect_only_wheel_copies(main, wheel, Run::main_module_cpu);
  // A run asked for a GPU preloads what CUDA work opens too (it fails later here when there is no GPU).
  auto gpu = run_with_loader_trace("env LD_LIBRARY_PATH=" + kDecoys, "verify --device cuda:0");
  expect_only_wheel_copies(gpu, wheel, Run::cuda);
}

TEST(CudaLibraryLoading, LdSoCacheDecoysNeverReplaceTheWheelsLibraries) {
  auto wheel = wheel_nvidia_dir();
  if (wheel.empty()) GTEST_SKIP() << "this LibTorch loads no CUDA library";
  if (::geteuid() != 0 || command_output("unshare -m true 2>&1 && echo ok") != "ok\n")
    GTEST_SKIP() << "needs root and a private mount namespace (unshare -m)";
  char dir[] = "/tmp/dlready-ldcache-XXXXXX";
  ASSERT_TRUE(::mkdtemp(dir));
  std::string d = dir;
  // The decoys first, then everything the real cache covers, in a cache of our own (-X: no links).
  std::ofstream(d + "/ld.so.conf") << kDecoys << "\ninclude /etc/ld.so.conf.d/*.conf\n";
  ASSERT_EQ(command_output("ldconfig -X -C " + d + "/ld.so.cache -f " + d + "/ld.so.conf 2>&1 && echo ok"), "ok\n");
  auto listed = command_output("ldconfig -p -C " + d + "/ld.so.cache | grep -c " + kDecoys);
  ASSERT_GT(std::stoi(listed), 5) << "the decoys are not in the cache";
  auto r = run_with_loader_trace("unshare -m sh -c 'mount --bind " + d + "/ld.so.cache /etc/ld.so.cache && exec \"$0\" \"$@\"' env",
                                 "verify --device cuda:0");
  remove_tree(d);
  expect_only_wheel_copies(r, wheel, Run::cuda);
}

// --- a source-built module whose torch moved (issue 62, item 0) -----------------------------------

// The site-packages the module's run path names for torch/lib ("" when none).
std::string module_torch_site(const std::string& module) {
  auto out = command_output("readelf -d " + module);
  std::smatch m;
  static const std::regex re("(/[^:\\]]*)/torch/lib");
  return std::regex_search(out, m, re) ? m[1].str() : "";
}

void write_bytes(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

// `bytes` with every `from` replaced by `to` (same length: the file's offsets stay).
std::string replaced(std::string bytes, const std::string& from, const std::string& to) {
  for (size_t at = bytes.find(from); at != std::string::npos; at = bytes.find(from, at + to.size()))
    bytes.replace(at, from.size(), to);
  return bytes;
}

// The source build's module names its build venv by absolute path; with that venv gone (here: the
// path in a copy of the module made to name a folder that does not exist) and the very same torch
// in the user's active environment, the module loads from there. With no torch, or another build,
// one error names the torch it needs and the pip line, exit 3 — not "libtorch.so: cannot open".
TEST(ModuleTorch, AModuleWhoseBuildVenvIsGoneLoadsTheSameTorchFromTheActiveEnvironment) {
  const std::string module = fs::path(kBinary).parent_path().string() + "/libdlready_train.so";
  const std::string site = module_torch_site(module);
  if (site.empty()) GTEST_SKIP() << "the module names no torch/lib by absolute path";
  const std::string built_for = trim(command_output("readelf -p .dlready_torch " + module + " | sed -n 's/^ *\\[ *0\\] *//p'"));
  ASSERT_FALSE(built_for.empty()) << "the module says which torch it was built for";
  char dir[] = "/tmp/dlready-moved-XXXXXX";
  ASSERT_TRUE(::mkdtemp(dir));
  const std::string d = dir, gone = ("/tmp/gone" + std::string(site.size(), 'x')).substr(0, site.size());
  write_bytes(d + "/libdlready_train.so", replaced(read_text(module), site, gone));
  // The user's environment: a venv holding the same torch (and the wheel's CUDA libraries) as links.
  ASSERT_EQ(std::system(("python3 -m venv --without-pip " + d + "/env").c_str()), 0);
  const std::string env_site = command_output("ls -d " + d + "/env/lib/python3*/site-packages | head -1");
  const std::string user_site = trim(env_site);
  ASSERT_EQ(std::system(("ln -s " + site + "/torch " + site + "/torch-*.dist-info " + user_site + "/ && "
                         "if [ -d " + site + "/nvidia ]; then ln -s " + site + "/nvidia " + user_site + "/; fi").c_str()), 0);
  const std::string base = "env -i PATH=/usr/bin:/bin HOME=" + d + " DLREADY_TRAIN_MODULE=" + d + "/libdlready_train.so ";
  auto loaded = run_command(base + "VIRTUAL_ENV=" + d + "/env " + kBinary + " verify --device cpu 2>&1");
  EXPECT_EQ(loaded.status, 0) << loaded.out;
  EXPECT_NE(loaded.out.find("PASS    matmul"), std::string::npos) << loaded.out;
  // The doctor agrees: the module's LibTorch is the environment's.
  auto doctor = run_command(base + "VIRTUAL_ENV=" + d + "/env " + kBinary + " doctor --no-color --no-cache 2>&1");
  EXPECT_NE(doctor.out.find("-> LibTorch " + built_for.substr(0, built_for.find(' ')) + " in " + user_site + "/torch/lib"),
            std::string::npos) << doctor.out;
  EXPECT_EQ(doctor.out.find("dlready-module-missing"), std::string::npos) << doctor.out;
  // No torch anywhere: the torch it needs, and the pip line.
  const std::string version = built_for.substr(0, built_for.find(' '));
  auto none = run_command(base + kBinary + " verify --device cpu 2>&1");
  EXPECT_EQ(none.status, 3) << none.out;
  EXPECT_NE(none.out.find("the module needs torch " + version + ", built against " + gone + "/torch/lib, which is gone"),
            std::string::npos) << none.out;
  EXPECT_NE(none.out.find("pip install torch==" + version), std::string::npos) << none.out;
  EXPECT_EQ(none.out.find("cannot open shared object file"), std::string::npos) << none.out;
  // Another build of torch in the environment: refused before loading, naming both.
  std::string other = built_for;
  other[other.find('.') + 1] = other[other.find('.') + 1] == '0' ? '1' : '0';
  write_bytes(d + "/section", other + std::string(1, '\0'));  // the same size
  ASSERT_EQ(std::system(("objcopy --update-section .dlready_torch=" + d + "/section " + d + "/libdlready_train.so").c_str()), 0);
  auto mismatch = run_command(base + "VIRTUAL_ENV=" + d + "/env " + kBinary + " verify --device cpu 2>&1");
  EXPECT_EQ(mismatch.status, 3) << mismatch.out;
  EXPECT_NE(mismatch.out.find("your environment's torch is " + version), std::string::npos) << mismatch.out;
  EXPECT_NE(mismatch.out.find("another build"), std::string::npos) << mismatch.out;
  remove_tree(d);
}

// --- crash containment ----------------------------------------------------------------------------

std::string crash_prefix(const std::string& function) {
  return "env DLREADY_TEST_CRASH_IN=" + function + " LD_PRELOAD=" + std::string(DLREADY_CRASH_ON_CALL_LIB);
}

TEST(CrashContainment, VerifyCheckThatDiesIsAFailNamingTheSignalAndTheOthersStillRun) {
  char dir[] = "/tmp/dlready-crash-XXXXXX";
  ASSERT_TRUE(::mkdtemp(dir));
  std::string log = std::string(dir) + "/log";
  // Gloo's all-reduce listens on a socket: only that check faults.
  int rc = wait_exit(start_in_background(crash_prefix("listen") + " " + kBinary + " verify --device cpu", log), 300);
  std::string out = read_text(log);
  remove_tree(dir);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("FAIL    all-reduce"), std::string::npos) << out;
  EXPECT_NE(out.find("died of SIGSEGV in " + std::string(DLREADY_CRASH_ON_CALL_LIB)), std::string::npos) << out;
  EXPECT_EQ(out.find("killed by"), std::string::npos) << "the FAIL line says it once\n" << out;
  EXPECT_NE(out.find("PASS    matmul"), std::string::npos) << out;
  EXPECT_NE(out.find("PASS    conv"), std::string::npos) << out;
  EXPECT_NE(out.find("NOT READY"), std::string::npos) << out;
}

TEST(CrashContainment, TrainNamesItsStageAndDiesOfTheSameSignal) {
  char dir[] = "/tmp/dlready-crash-XXXXXX";
  ASSERT_TRUE(::mkdtemp(dir));
  std::string log = std::string(dir) + "/log";
  // An empty cache: the data is inflated (the decoded copies of another run would skip zlib).
  int rc = wait_exit(start_in_background(crash_prefix("inflateInit2_") + " XDG_CACHE_HOME=" + dir + "/cache " + kBinary +
                                             " train --device cpu --epochs 1 --no-progress --out " + dir + "/run",
                                         log),
                     300);
  std::string out = read_text(log);
  remove_tree(dir);
  EXPECT_EQ(rc, 128 + SIGSEGV) << out;
  EXPECT_NE(out.find("dlready train: killed by SIGSEGV (invalid memory access) during loading the data"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find(std::string(" in ") + DLREADY_CRASH_ON_CALL_LIB), std::string::npos) << out;
  EXPECT_NE(out.find("see dlready doctor; dlready verify --level full"), std::string::npos) << out;
}

}  // namespace
}  // namespace dlready::test
