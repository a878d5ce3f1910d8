// The doctor's scan cache: an answer comes back only while every file it depended on is unchanged;
// a corrupt entry is ignored and rewritten; concurrent writers never leave a half-written entry;
// the folder stays within its bounds (least recently used out); --no-cache neither reads nor
// writes; XDG_CACHE_HOME is honoured.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>
#include <nlohmann/json.hpp>

#include "facts/access_log.hpp"
#include "os/bounded_file.hpp"
#include "os/posix_fs.hpp"
#include "os/root_fs.hpp"
#include "fixture.hpp"
#include "probe/linux/scan_cache.hpp"

namespace dlready::test {
namespace {

void put_text(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::trunc) << text; }

TEST(ScanCache, AnAnswerLastsWhileItsFileIsUnchanged) {
  Fixture f;
  std::string lib = f.root + "/lib.so", file = f.root + "/cache/doctor-cache";
  put_text(lib, "one");
  GpuCode code;
  code.sass = {80, 90};
  code.ptx = {90};
  {
    ScanCache c(file);
    EXPECT_FALSE(c.gpu_code(lib));
    c.put_gpu_code(lib, code);
    ASSERT_TRUE(c.save());
  }
  auto hit = ScanCache(file).gpu_code(lib);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->sass, code.sass);
  EXPECT_EQ(hit->ptx, code.ptx);
  put_text(lib, "two, longer");  // another size and mtime: stale
  EXPECT_FALSE(ScanCache(file).gpu_code(lib));
  EXPECT_FALSE(ScanCache("").gpu_code(lib)) << "disabled";
  EXPECT_TRUE(ScanCache("").save()) << "disabled: nothing to write";
}

// The .json entries of a cache folder (temporary files of a write in progress are not entries).
std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& name : list_directory(dir))
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) out.push_back(dir + "/" + name);
  return out;
}

// `lib` (made if absent) with an empty answer, saved to the cache in `dir`.
void cache_one(const std::string& dir, const std::string& lib) {
  if (!path_exists(lib)) put_text(lib, "x");
  ScanCache c(dir);
  c.put_gpu_code(lib, GpuCode{});
  ASSERT_TRUE(c.save());
}

TEST(ScanCache, ACorruptEntryIsIgnoredAndRewritten) {
  Fixture f;
  std::string dir = f.root + "/doctor-cache", lib = f.root + "/lib.so";
  cache_one(dir, lib);
  ASSERT_EQ(entries(dir).size(), 1u);
  for (const std::string& junk : std::vector<std::string>{"{not json", "[]", R"({"schema":"dlready.doctor-cache/0"})",
                                                           std::string(100, '\0')}) {
    put_text(entries(dir).at(0), junk);
    ScanCache c(dir);
    EXPECT_FALSE(c.gpu_code(lib)) << junk;
    c.put_gpu_code(lib, GpuCode{});
    ASSERT_TRUE(c.save());
    EXPECT_TRUE(ScanCache(dir).gpu_code(lib)) << "rewritten after " << junk;
  }
  // The one-file cache of earlier versions (or junk) where the folder belongs gives way.
  std::string other = f.root + "/old-cache";
  put_text(other, "{\"schema\":\"dlready.doctor-cache/2\"}");
  ScanCache c(other);
  EXPECT_FALSE(c.loaded());
  c.put_gpu_code(lib, GpuCode{});
  ASSERT_TRUE(c.save());
  EXPECT_TRUE(ScanCache(other).gpu_code(lib));
}

TEST(ScanCache, ConcurrentDoctorsNeverLeaveAHalfWrittenEntry) {
  Fixture f;
  std::string dir = f.root + "/doctor-cache";
  std::vector<pid_t> kids;
  for (int k = 0; k < 4; ++k) {
    pid_t pid = ::fork();
    if (pid == 0) {
      for (int i = 0; i < 40; ++i) {
        ScanCache c(dir);
        GpuCode g;
        g.sass = {k, i};
        c.put_gpu_code(f.root + "/lib" + std::to_string(k) + "_" + std::to_string(i % 8), g);
        if (!c.save()) ::_exit(1);
      }
      ::_exit(0);
    }
    kids.push_back(pid);
  }
  int torn = 0;
  for (int i = 0; i < 100; ++i)
    for (const auto& e : entries(dir)) {
      auto bytes = read_regular_file(e, 1 << 20, "entry").bytes;  // gone meanwhile (pruned): fine
      if (bytes && nlohmann::json::parse(*bytes, nullptr, false).is_discarded()) ++torn;
    }
  for (pid_t pid : kids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(torn, 0);
}

// Issue 34, item 5: the folder is bounded (64 entries, 1 MiB), the least recently used go first,
// and a run reads only the entries it asks for.
TEST(ScanCache, TheLeastRecentlyUsedGoBeyondTheBound) {
  Fixture f;
  std::string dir = f.root + "/doctor-cache", kept = f.root + "/lib-kept";
  cache_one(dir, kept);
  for (int batch = 0; batch < 10; ++batch) {
    ASSERT_TRUE(ScanCache(dir).gpu_code(kept)) << "used in every batch, so never the least recent";
    ScanCache c(dir);
    for (int i = 0; i < 20; ++i) c.put_gpu_code(f.root + "/lib" + std::to_string(batch) + "_" + std::to_string(i), GpuCode{});
    ASSERT_TRUE(c.save());
    EXPECT_LE(entries(dir).size(), 64u);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(entries(dir).size(), 64u);
  EXPECT_TRUE(ScanCache(dir).gpu_code(kept));
  EXPECT_FALSE(ScanCache(dir).gpu_code(f.root + "/lib0_0")) << "the oldest went";
}

TEST(ScanCache, TheDoctorReadsItsClosuresFromItUntilTheBinaryChanges) {
  Fixture f;
  healthy_gpu_machine(f);
  f.copy(DLREADY_FAKE_NEEDS_ZLIB, "/opt/app/libapp.so");
  auto o = f.options();
  o.binaries = {"/opt/app/libapp.so"};
  o.cache_file = f.root + "-cache";  // outside the root: the cache is not part of the machine
  auto fresh = gather_facts(o).facts.binaries.at(0);
  ASSERT_FALSE(fresh.libraries.empty());
  // Mark the cached answer: a run that shows the mark read the cache.
  bool marked = false;
  for (const auto& e : entries(o.cache_file)) {
    if (e.find("/closure-") == std::string::npos) continue;
    auto j = nlohmann::json::parse(*read_regular_file(e, 1 << 24, "cache").bytes);
    j["strings"].push_back("from the cache");  // an entry's strings are indices into its table
    j["resolution"]["libraries"][0][3] = j["strings"].size() - 1;
    put_text(e, j.dump());
    marked = true;
  }
  ASSERT_TRUE(marked);
  EXPECT_EQ(gather_facts(o).facts.binaries.at(0).libraries.at(0).via, "from the cache");
  // --no-cache: neither read nor written.
  auto no_cache = o;
  no_cache.cache_file = "";
  EXPECT_EQ(gather_facts(no_cache).facts.binaries.at(0).libraries.at(0).via, fresh.libraries.at(0).via);
  // The binary changes (another mtime): the closure is resolved again.
  struct timespec times[2] = {{0, UTIME_OMIT}, {1234567, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, f.host("/opt/app/libapp.so").c_str(), times, 0), 0);
  EXPECT_EQ(gather_facts(o).facts.binaries.at(0).libraries.at(0).via, fresh.libraries.at(0).via);
  remove_tree(o.cache_file);
}

// dpkg's versions (from its ~1 MB status file) come from the cache while the file is unchanged, and
// are read again once it changes; a capture being recorded reads the file itself.
TEST(ScanCache, DpkgVersionsComeFromItUntilTheStatusFileChanges) {
  Fixture f;
  healthy_gpu_machine(f);
  f.write("/etc/os-release", "ID=debian\n");
  f.link("/usr/bin/gcc", "gcc-12");
  f.write("/var/lib/dpkg/status", "Package: cmake\nStatus: install ok installed\nVersion: 3.25.1-1\n");
  auto o = f.options();
  o.cache_file = f.root + "-cache";
  EXPECT_EQ(gather_facts(o).facts.os.cmake_version, "3.25.1");
  bool marked = false;
  for (const auto& e : entries(o.cache_file)) {
    auto j = nlohmann::json::parse(*read_regular_file(e, 1 << 24, "cache").bytes);
    if (e.find("/values-") == std::string::npos || !j["key"].get<std::string>().starts_with("dpkg ")) continue;
    j["values"]["cmake"] = "9.9.9-1";  // a run that shows it read the cache
    put_text(e, j.dump());
    marked = true;
  }
  ASSERT_TRUE(marked);
  EXPECT_EQ(gather_facts(o).facts.os.cmake_version, "9.9.9");
  auto recording = o;
  AccessLog log;
  recording.record = &log;
  EXPECT_EQ(gather_facts(recording).facts.os.cmake_version, "3.25.1");
  EXPECT_TRUE(log.bytes.count("/var/lib/dpkg/status")) << "a capture holds the file it was told of";
  f.write("/var/lib/dpkg/status", "Package: cmake\nStatus: install ok installed\nVersion: 3.28.3-1\n");
  EXPECT_EQ(gather_facts(o).facts.os.cmake_version, "3.28.3");
  remove_tree(o.cache_file);
}

TEST(ScanCache, XdgCacheHomeFirstThenHome) {
  EXPECT_EQ(default_scan_cache_file({{"XDG_CACHE_HOME", "/x"}, {"HOME", "/h"}}), "/x/dlready/doctor-cache");
  EXPECT_EQ(default_scan_cache_file({{"XDG_CACHE_HOME", "relative"}, {"HOME", "/h"}}), "/h/.cache/dlready/doctor-cache");
  EXPECT_EQ(default_scan_cache_file({}), "");
  Fixture f;
  std::string cmd = "XDG_CACHE_HOME=" + f.root + "/xdg " + DLREADY_BINARY + " doctor --no-driver-probe --binary " +
                    DLREADY_FAKE_NEEDS_ZLIB + " > /dev/null";
  static_cast<void>(std::system((cmd).c_str()));
  EXPECT_FALSE(entries(f.root + "/xdg/dlready/doctor-cache").empty());
  static_cast<void>(std::system(("XDG_CACHE_HOME=" + f.root + "/none " + DLREADY_BINARY +
                                 " doctor --no-cache --no-driver-probe --binary " + DLREADY_FAKE_NEEDS_ZLIB + " > /dev/null").c_str()));
  EXPECT_FALSE(path_exists(f.root + "/none"));
  // A relative --binary is relative to the working directory.
  std::string lib = DLREADY_FAKE_NEEDS_ZLIB;
  auto out = command_output("cd " + path_dirname(lib) + " && " + DLREADY_BINARY + " doctor --no-cache --no-driver-probe --json --binary ./" +
                            path_basename(lib) + " 2>&1");
  EXPECT_EQ(out.find("cannot open"), std::string::npos) << out;
  EXPECT_NE(out.find("\"libz.so.1\""), std::string::npos) << out;
}

}  // namespace
}  // namespace dlready::test
