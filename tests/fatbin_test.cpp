// The fat binary reader against cuobjdump: libraries built here by nvcc with several -gencode
// targets (SASS and PTX, compressed and not), garbage, and the pinned wheel's libtorch_cuda.so.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "os/posix_fs.hpp"
#include "core/text.hpp"
#include "fixture.hpp"
#include "diagnose/gpu_code.hpp"
#include "binfmt/fatbin_reader.hpp"
#include "probe/gather.hpp"

namespace dlready::test {
namespace {

std::string home() { return std::getenv("HOME") ? std::getenv("HOME") : "/root"; }
std::string venv_site() { return home() + "/.cache/dlready/venv-torch2.11.0-tv0.26.0/lib/python3.11/site-packages"; }

std::string find_tool(const std::string& name) {
  for (const auto& dir : {std::string("/usr/local/cuda/bin"), std::string("/usr/bin"),
                          venv_site() + "/triton/backends/nvidia/bin"})
    if (path_exists(dir + "/" + name)) return dir + "/" + name;
  return "";
}

// {sass archs, ptx archs} as cuobjdump lists them ("ELF file 1: x.1.sm_90.cubin").
std::pair<std::set<int>, std::set<int>> cuobjdump_archs(const std::string& tool, const std::string& lib) {
  std::set<int> sass, ptx;
  for (const auto& l : lines(command_output(tool + " --list-elf --list-ptx " + lib + " 2>/dev/null"))) {
    auto pos = l.find(".sm_");
    if (pos == std::string::npos) continue;
    int arch = static_cast<int>(parse_int(l.substr(pos + 4, l.find_first_not_of("0123456789", pos + 4) - pos - 4)).value_or(-1));
    (starts_with(l, "PTX") ? ptx : sass).insert(arch);
  }
  return {sass, ptx};
}

class FatbinTest : public ::testing::Test {
 protected:
  void SetUp() override {
    nvcc_ = find_tool("nvcc");
    cuobjdump_ = find_tool("cuobjdump");
    if (nvcc_.empty() || cuobjdump_.empty()) GTEST_SKIP() << "needs nvcc and cuobjdump";
    f_.write("/k.cu", "__global__ void k(float* x) { x[threadIdx.x] *= 2; }\nvoid launch(float* x) { k<<<1, 32>>>(x); }\n");
  }
  std::string build(const std::string& name, const std::string& flags) {
    std::string out = f_.root + "/" + name;
    std::string cmd = nvcc_ + " -shared -Xcompiler -fPIC " + flags + " -o " + out + " " + f_.root + "/k.cu 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    return out;
  }
  void expect_matches(const std::string& lib) {
    RootFs fs("/");
    auto ours = read_fatbin_archs(fs, lib);
    ASSERT_TRUE(ours) << lib;
    EXPECT_EQ(ours->error, "");
    auto [sass, ptx] = cuobjdump_archs(cuobjdump_, lib);
    EXPECT_EQ(ours->sass, sass) << lib;
    EXPECT_EQ(ours->ptx, ptx) << lib;
  }
  Fixture f_;
  std::string nvcc_, cuobjdump_;
};

TEST_F(FatbinTest, SassAndPtxCompressedOrNotMatchCuobjdump) {
  const std::string two = "-gencode arch=compute_75,code=sm_75 -gencode arch=compute_90,code=[sm_90,compute_90]";
  expect_matches(build("default.so", two));
  expect_matches(build("none.so", two + " --compress-mode=none"));
  expect_matches(build("lz4.so", two + " -Xfatbin -compress-all --compress-mode=speed"));
  expect_matches(build("ptx_only.so", "-gencode arch=compute_80,code=compute_80"));
  expect_matches(build("many.so", "-gencode arch=compute_80,code=sm_80 -gencode arch=compute_86,code=sm_86 "
                                  "-gencode arch=compute_100,code=sm_100 -gencode arch=compute_120,code=[sm_120,compute_120]"));
  RootFs fs("/");
  auto none = read_fatbin_archs(fs, f_.root + "/none.so");
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->lz4 || none->zstd) << "--compress-mode=none";
}

TEST_F(FatbinTest, PinnedWheelMatchesCuobjdump) {
  std::string lib = venv_site() + "/torch/lib/libtorch_cuda.so";
  if (!path_exists(lib)) GTEST_SKIP() << "pinned venv not installed";
  expect_matches(lib);
  // And the doctor's report of it (issue 16: "lists exactly the architectures cuobjdump lists").
  auto j = nlohmann::json::parse(command_output(std::string(DLREADY_BINARY) + " doctor --binary " + lib + " --json"));
  auto [sass, ptx] = cuobjdump_archs(cuobjdump_, lib);
  std::set<std::string> theirs;
  for (int a : sass) theirs.insert("sm_" + std::to_string(a));
  ASSERT_EQ(j["facts"]["gpu_code"].size(), 1u);
  EXPECT_EQ(j["facts"]["gpu_code"][0]["sass"].get<std::set<std::string>>(), theirs);
  EXPECT_EQ(j["facts"]["gpu_code"][0]["ptx"].size(), ptx.size());
  EXPECT_EQ(j["facts"]["gpu_code"][0]["owner"], "torch 2.11.0+cu130");
}

// What the doctor reports for a --binary is what cuobjdump lists, and each GPU is told whether it
// runs it: SASS of its major up to its minor, else PTX it can JIT, else nothing.
TEST_F(FatbinTest, DoctorShowsTheGpuCodeAndWhichGpusRunIt) {
  auto lib = build("mixed.so", "-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=compute_90");
  auto j = nlohmann::json::parse(command_output(std::string(DLREADY_BINARY) + " doctor --binary " + lib + " --json"));
  auto [sass, ptx] = cuobjdump_archs(cuobjdump_, lib);
  ASSERT_EQ(j["facts"]["gpu_code"].size(), 1u) << j["facts"]["gpu_code"];
  const auto& code = j["facts"]["gpu_code"][0];
  std::set<std::string> theirs_sass, theirs_ptx;
  for (int a : sass) theirs_sass.insert("sm_" + std::to_string(a));
  for (int a : ptx) theirs_ptx.insert("compute_" + std::to_string(a));
  EXPECT_EQ(code["sass"].get<std::set<std::string>>(), theirs_sass);
  EXPECT_EQ(code["ptx"].get<std::set<std::string>>(), theirs_ptx);
  EXPECT_EQ(code["summary"].get<std::string>().rfind("SASS sm_80, PTX compute_90", 0), 0u) << code;
  // On a machine with GPUs (the fake driver's), each is compared.
  Fixture m;
  healthy_gpu_machine(m);
  m.copy(lib, "/opt/app/mixed.so");
  for (auto [cc, runs, how] : {std::tuple{"8.6", true, "SASS sm_80"}, std::tuple{"9.0", true, "PTX compute_90, JIT"},
                               std::tuple{"7.5", false, "no SASS sm_7x up to sm_75, no PTX up to compute_75"}}) {
    replace_driver(m, "580.65.06", std::string("devices=1\ndev0.name=GPU\ndev0.cc=") + cc + "\ncuda.driver_version=13000\n");
    auto o = m.options();
    o.binaries = {"/opt/app/mixed.so"};
    auto views = gpu_code_views(gather_facts(o).facts);
    ASSERT_EQ(views.size(), 1u);
    ASSERT_EQ(views[0].gpus.size(), 1u) << cc;
    EXPECT_EQ(views[0].gpus[0].runs, runs) << cc;
    EXPECT_EQ(views[0].gpus[0].how.rfind(how, 0), 0u) << cc << ": " << views[0].gpus[0].how;
  }
}

// A PyTorch whose libtorch_cuda.so has only PTX older than the GPU: it runs, through the driver's
// JIT, and the doctor says what that costs (ptx-jit-only); SASS for the GPU: no finding.
TEST_F(FatbinTest, PtxOnlyCoverageIsAFinding) {
  auto ptx_only = build("ptx.so", "-gencode arch=compute_90,code=compute_90");
  auto with_sass = build("sass.so", "-gencode arch=compute_90,code=sm_90 -gencode arch=compute_100,code=sm_100");
  Fixture m;
  healthy_gpu_machine(m);
  replace_driver(m, "580.65.06", "devices=1\ndev0.name=NVIDIA B200\ndev0.cc=10.0\ncuda.driver_version=13000\n");
  const std::string lib = "/home/alice/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so";
  m.remove(lib);
  m.copy(ptx_only, lib);
  m.env["CUDA_CACHE_DISABLE"] = "1";
  auto r = m.report();
  const Finding* x = nullptr;
  for (const auto& y : r.findings)
    if (y.id == "ptx-jit-only") x = &y;
  ASSERT_TRUE(x);
  EXPECT_NE(x->evidence.at(0).find("(sm_100) runs it through PTX compute_90"), std::string::npos) << x->evidence.at(0);
  EXPECT_EQ(x->evidence.back(), "CUDA_CACHE_DISABLE=1 (the driver's JIT cache)");
  for (const auto& y : r.findings) EXPECT_NE(y.id, "arch-not-supported");
  m.remove(lib);
  m.copy(with_sass, lib);
  for (const auto& y : m.report().findings) EXPECT_NE(y.id, "ptx-jit-only");
}

TEST(Fatbin, GarbageIsRejectedCleanly) {
  FatbinArchs out;
  std::string bytes = std::string("\x50\xED\x55\xBA\x01\x00\x10\x00", 8) + std::string(8, '\xff') + std::string(64, 'x');
  auto read = [&](uint64_t off, size_t len) -> std::optional<std::string> {
    if (off >= bytes.size()) return std::string();
    return bytes.substr(off, len);
  };
  scan_fatbin_range(read, 0, bytes.size(), out);
  EXPECT_NE(out.error, "");
  EXPECT_TRUE(out.empty());
  FatbinArchs junk;
  std::string noise(256, '\x42');
  scan_fatbin_range([&](uint64_t off, size_t len) -> std::optional<std::string> { return noise.substr(off, len); }, 0,
                    noise.size(), junk);
  EXPECT_NE(junk.error.find("bad container magic"), std::string::npos);
  Fixture f;
  f.write("/notelf.so", "hello");
  EXPECT_FALSE(read_fatbin_archs(RootFs("/"), f.root + "/notelf.so"));
}

}  // namespace
}  // namespace dlready::test
