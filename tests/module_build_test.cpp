// The LibTorch module of a wheel-installed dlready (setup/module_build.hpp): which torch it is built
// against, where it is kept, and when a cached one no longer fits. The build itself, through the
// installed wheel against the pinned torch, is tests/wheel/check_wheels.sh's.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "os/atomic_file.hpp"
#include "fixture.hpp"
#include "setup/module_build.hpp"

namespace dlready::test {
namespace {

// A venv in the fixture with torch and the two libraries the module's key reads.
std::map<std::string, std::string> torch_env(Fixture& f, bool cxx11 = true) {
  TorchSpec spec;
  add_torch_venv(f, "/venv", spec, false);
  const std::string torch = "/venv/lib/python3.11/site-packages/torch";
  f.write(torch + "/version.py", "__version__ = '2.11.0+cu130'\ncuda = '13.0'\ngit_version = '70d99e99'\n");
  f.write(torch + "/lib/libc10.so", std::string(3 << 20, 'x') + (cxx11 ? "_ZNSt7__cxx1112basic_string" : "_ZNSs4_Rep") + "\n");
  f.write(torch + "/lib/libtorch_cpu.so", "libtorch_cpu");
  return {{"VIRTUAL_ENV", f.host("/venv")}, {"HOME", f.host("/home/alice")}, {"PATH", "/usr/bin:/bin"},
          {"DLREADY_MODULE_CACHE", f.host("/cache")}};
}

TEST(ModuleBuild, FindsTheActiveTorchAndItsAbi) {
  Fixture f;
  auto env = torch_env(f);
  auto s = find_user_torch(env, std::nullopt);
  ASSERT_TRUE(s.torch) << s.why;
  EXPECT_EQ(s.torch->version, "2.11.0+cu130");
  EXPECT_EQ(s.torch->git_version, "70d99e99");
  EXPECT_EQ(s.torch->cuda, "13.0");
  EXPECT_EQ(s.torch->cxx11_abi, 1) << "the needle past the first 1 MiB chunk";
  EXPECT_EQ(s.torch->torch_dir, f.host("/venv/lib/python3.11/site-packages/torch"));

  Fixture old;
  auto old_env = torch_env(old, false);
  auto o = find_user_torch(old_env, std::nullopt);
  ASSERT_TRUE(o.torch) << o.why;
  EXPECT_EQ(o.torch->cxx11_abi, 0);
  EXPECT_NE(cached_module(f.host("/cache"), *s.torch).key, cached_module(f.host("/cache"), *o.torch).key);
}

TEST(ModuleBuild, ATorchWithoutLibrariesIsSaidNotPassedOver) {
  Fixture f;
  auto env = torch_env(f);
  f.remove("/venv/lib/python3.11/site-packages/torch/lib");
  auto s = find_user_torch(env, std::nullopt);
  EXPECT_FALSE(s.torch);
  EXPECT_NE(s.why.find("has no readable lib/libc10.so"), std::string::npos) << s.why;
}

// Hostile input: a FIFO where a library or the manifest should be is refused, never waited on.
TEST(ModuleBuild, FifosAreRefusedNotWaitedOn) {
  Fixture f;
  auto env = torch_env(f);
  auto torch = *find_user_torch(env, std::nullopt).torch;
  auto m = cached_module(module_cache_root(env), torch);
  f.write(m.library.substr(f.root.size()), "ELF");
  ASSERT_EQ(::mkfifo(m.manifest.c_str(), 0644), 0);
  EXPECT_NE(cached_module_problem(m, torch, "0.1.0").error().find("missing or unreadable"),
            std::string::npos);
  const std::string lib = f.host("/venv/lib/python3.11/site-packages/torch/lib/libc10.so");
  ASSERT_EQ(::unlink(lib.c_str()), 0);
  ASSERT_EQ(::mkfifo(lib.c_str(), 0644), 0);
  auto s = find_user_torch(env, std::nullopt);
  EXPECT_FALSE(s.torch);
  EXPECT_NE(s.why.find("has no readable lib/libc10.so"), std::string::npos) << s.why;
}

// Issue 57: a venv path holding a shell's and CMake's special characters. Nothing goes through a
// shell (a wheel-installed dlready in '/tmp/v e"n'v $(touch PWNED) `id`;x' ran no command), but
// CMake splits a -D value at ';': the build is refused up front with the reason, before CMake runs.
TEST(ModuleBuild, APathCMakeWouldSplitIsRefusedWithTheReason) {
  Fixture f;
  auto env = torch_env(f);
  auto torch = *find_user_torch(env, std::nullopt).torch;
  ModuleBuildRequest rq;
  rq.torch = torch;
  rq.torch.torch_dir = f.root + "/v e\"n'v $(touch PWNED) `id`;x/lib/python3.11/site-packages/torch";
  rq.kit = f.root + "/kit";
  rq.cache_root = f.root + "/cache";
  rq.progress = stderr;
  auto r = build_module(rq);
  EXPECT_TRUE(r.library.empty());
  EXPECT_NE(r.error.find("whose ';' CMake reads as a list separator"), std::string::npos) << r.error;
  ASSERT_FALSE(r.fix.empty());
  EXPECT_NE(r.fix[0].find("no ';'"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(f.root + "/cache")) << "refused before anything was made";
}

TEST(ModuleBuild, KeyIsSafeAndPerPlace) {
  TorchBuild t;
  t.torch_dir = "/a/torch";
  t.version = "2.11.0+cu130/../../x y";
  auto m = cached_module("/cache", t);
  EXPECT_EQ(m.key.find('/'), std::string::npos) << m.key;
  EXPECT_EQ(m.key.find(' '), std::string::npos) << m.key;
  EXPECT_EQ(m.dir, "/cache/" + m.key);
  TorchBuild elsewhere = t;
  elsewhere.torch_dir = "/b/torch";
  EXPECT_NE(cached_module("/cache", elsewhere).key, m.key) << "another venv's torch gets its own module";
}

TEST(ModuleBuild, CachedModuleFitsOnlyItsTorch) {
  Fixture f;
  auto env = torch_env(f);
  auto torch = *find_user_torch(env, std::nullopt).torch;
  auto m = cached_module(module_cache_root(env), torch);
  EXPECT_EQ(m.dir.rfind(f.host("/cache/torch-2.11.0+cu130-cxx11abi1-"), 0), 0u) << m.dir;
  EXPECT_NE(cached_module_problem(m, torch, "0.1.0").error().find("not built yet"),
            std::string::npos);
  f.write(m.library.substr(f.root.size()), "ELF");
  EXPECT_NE(cached_module_problem(m, torch, "0.1.0").error().find("interrupted build"),
            std::string::npos);
  std::string manifest = "{\"dlready_version\": \"0.1.0\", \"torch_version\": \"2.11.0+cu130\", \"torch_dir\": \"" +
                         torch.torch_dir + "\", \"fingerprint\": \"" + torch.fingerprint + "\"}";
  ASSERT_TRUE(write_file_atomically(m.manifest, manifest));
  EXPECT_TRUE(cached_module_problem(m, torch, "0.1.0").ok());
  EXPECT_NE(cached_module_problem(m, torch, "0.2.0").error().find("built by dlready 0.1.0"),
            std::string::npos);
  // torch reinstalled over itself: the same version, other files.
  f.write("/venv/lib/python3.11/site-packages/torch/lib/libtorch_cpu.so", "another libtorch_cpu build");
  auto again = *find_user_torch(env, std::nullopt).torch;
  EXPECT_NE(cached_module_problem(m, again, "0.1.0").error().find("changed since"),
            std::string::npos);
}

TEST(ModuleBuild, KitIsFoundBesideTheExecutableOnly) {
  Fixture f;
  EXPECT_FALSE(module_kit_beside(f.host("/venv/bin/dlready")));
  f.write("/venv/share/dlready/module-src/CMakeLists.txt", "");
  EXPECT_FALSE(module_kit_beside(f.host("/venv/bin/dlready"))) << "half a kit";
  f.write("/venv/share/dlready/module-src/cmake/module_only.cmake", "");
  EXPECT_EQ(module_kit_beside(f.host("/venv/bin/dlready")), f.host("/venv/share/dlready/module-src"));
  EXPECT_FALSE(module_kit_beside(""));
}

}  // namespace
}  // namespace dlready::test
