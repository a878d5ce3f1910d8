// Bug-report parity with `python -m torch.utils.collect_env` (issue 16): the doctor, reading files
// only, gives the same values for the fields both can know, on this machine with the pinned venv.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>

#include "os/posix_fs.hpp"
#include "core/text.hpp"
#include "diagnose/rules.hpp"
#include "fixture.hpp"
#include "report/render.hpp"

namespace dlready::test {
namespace {

std::string venv() {
  return std::string(std::getenv("HOME") ? std::getenv("HOME") : "/root") + "/.cache/dlready/venv-torch2.11.0-tv0.26.0";
}

TEST(CollectEnvParity, TheFieldsBothKnowAgree) {
  if (!path_exists(venv() + "/bin/python")) GTEST_SKIP() << "pinned venv not installed";
  std::map<std::string, std::string> theirs;
  for (const auto& l : lines(command_output(venv() + "/bin/python -m torch.utils.collect_env 2>/dev/null"))) {
    auto c = l.find(": ");
    if (c != std::string::npos) theirs.emplace(l.substr(0, c), l.substr(c + 2));
  }
  ASSERT_TRUE(theirs.count("PyTorch version")) << "collect_env printed nothing usable";
  auto j = nlohmann::json::parse(command_output("VIRTUAL_ENV=" + venv() + " " + DLREADY_BINARY + " doctor --json --no-cache"));
  auto ours = j.at("collect_env").get<std::map<std::string, std::string>>();
  for (const char* same : {"PyTorch version", "CUDA used to build PyTorch", "OS", "Libc version", "Python platform",
                           "Clang version", "CUDA runtime version"})
    EXPECT_EQ(ours[same], theirs[same]) << same;
  EXPECT_EQ(theirs["Python version"].rfind(ours["Python version"] + " ", 0), 0u) << theirs["Python version"];
  // Issue 35, item 11: the exact strings collect_env prints, from the distribution's packages.
  for (const char* exact : {"CMake version", "GCC version", "Is XNNPACK available"})
    EXPECT_EQ(ours[exact], theirs[exact]) << exact;
  EXPECT_EQ(theirs["Is CUDA available"] + " (predicted)", ours["Is CUDA available"]);
  for (const char* lib : {"[pip3] torch==", "[pip3] numpy==", "[pip3] triton=="}) {
    auto at = ours["Versions of relevant libraries"].find(lib);
    ASSERT_NE(at, std::string::npos) << lib;
  }
}

// Issue 35, item 11: a machine that also has mingw-w64's cross compiler (the Windows build's)
// reports its own gcc as collect_env does: the package of the gcc on PATH, not every gcc folder.
TEST(CollectEnvParity, TheHostCompilerOnlyWithItsPackageVersion) {
  Fixture f;
  add_base_system(f);
  f.write("/etc/os-release", "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\n");
  f.write("/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus", "");
  f.write("/usr/lib/gcc/x86_64-w64-mingw32/12-posix/cc1plus", "");
  f.link("/usr/bin/gcc", "gcc-12");
  f.write("/var/lib/dpkg/status",
          "Package: gcc-12\nStatus: install ok installed\nVersion: 12.2.0-14+deb12u1\n\n"
          "Package: gcc-mingw-w64-x86-64-posix\nStatus: install ok installed\nVersion: 12.2.0-14+25.2\n\n"
          "Package: cmake-data\nStatus: install ok installed\nVersion: 9.9.9-1\n\n"  // a longer name, not cmake's
          "Package: cmake\nStatus: install ok installed\nVersion: 3.25.1-1\n");
  auto facts = f.facts();
  EXPECT_EQ(facts.os.gcc_versions, std::vector<std::string>{"12"});
  std::map<std::string, std::string> fields;
  for (const auto& [label, value] : collect_env_fields(facts, diagnose(facts))) fields[label] = value;
  EXPECT_EQ(fields["GCC version"], "(Debian 12.2.0-14+deb12u1) 12.2.0");
  EXPECT_EQ(fields["CMake version"], "version 3.25.1");
}

// A CMake dpkg does not know (installed from its tarball) is found by its share folder.
TEST(CollectEnvParity, CMakeFromItsShareFolderWhereDpkgHasNone) {
  Fixture f;
  add_base_system(f);
  f.write("/var/lib/dpkg/status", "Package: gcc-12\nStatus: install ok installed\nVersion: 12.2.0-14\n");
  f.write("/usr/local/share/cmake-3.31/Modules/CMake.cmake", "");
  auto facts = f.facts();
  EXPECT_EQ(facts.os.cmake_version, "3.31");
}

// A merged-/usr system: /bin and /lib are links into /usr, so PATH's /bin makes the prefix / whose
// lib is /usr/lib. Its Python folders are looked into once and reported once, under /usr.
TEST(CollectEnvParity, AMergedUsrSystemPythonIsOneEnvironment) {
  Fixture f;
  add_base_system(f);
  f.write("/usr/bin/python3", "");
  f.write("/usr/lib/python3.11/os.py", "");
  f.mkdir("/usr/lib/python3/dist-packages/numpy");
  f.link("/bin", "usr/bin");
  f.link("/lib", "usr/lib");
  f.env["PATH"] = "/usr/bin:/bin";
  auto facts = f.facts();
  int with_dist_packages = 0;
  for (const auto& e : facts.python.envs)
    for (const auto& sp : e.site_packages)
      if (ends_with(sp, "python3/dist-packages")) {
        ++with_dist_packages;
        EXPECT_EQ(e.prefix, "/usr");
      }
  EXPECT_EQ(with_dist_packages, 1);
  f.env["PATH"] = "/bin:/usr/bin";  // the / prefix first: the folder is still reported once
  int again = 0;
  for (const auto& e : f.facts().python.envs)
    for (const auto& sp : e.site_packages) again += ends_with(sp, "python3/dist-packages");
  EXPECT_EQ(again, 1);
}

}  // namespace
}  // namespace dlready::test
