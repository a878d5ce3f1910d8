// Unit tests of the text/binary parsers and small pure helpers.
#include <gtest/gtest.h>

#include <cstdio>
#include <sys/stat.h>
#include <memory>
#include <optional>

#include "compat/compat.hpp"
#include "compat/gpu_peaks.hpp"
#include "core/crc32c.hpp"
#include "core/text.hpp"
#include "diagnose/rules.hpp"
#include "facts/access_log.hpp"
#include "fixture.hpp"
#include "os/root_fs.hpp"
#include "probe/linux/ld_cache.hpp"
#include "probe/linux/library_locator.hpp"
#include "probe/linux/probes.hpp"

namespace dlready {
namespace {

TEST(Text, CompareVersions) {
  EXPECT_LT(compare_versions("525.60.13", "580.65.06"), 0);
  EXPECT_EQ(compare_versions("580.65.06", "580.65.06"), 0);
  EXPECT_GT(compare_versions("580.65.10", "580.65.06"), 0);
  EXPECT_EQ(compare_versions("13.0", "13"), 0);
  // A part that is no integer counts as 0; empty parts too; spaces around a part are ignored.
  EXPECT_EQ(compare_versions("2.11.0rc1", "2.11"), 0);
  EXPECT_EQ(compare_versions("12.", "12"), 0);
  EXPECT_EQ(compare_versions("", "0.0"), 0);
  EXPECT_LT(compare_versions("1..2", "1.0.3"), 0);
  EXPECT_EQ(compare_versions(" 3 . 10 ", "3.10"), 0);
  EXPECT_GT(compare_versions("3.10", "3.9"), 0);
  EXPECT_LT(compare_versions("-1", "0"), 0);
}

TEST(Text, FindAssignmentHandlesAnnotations) {
  std::string py = "__version__ = '2.11.0+cu130'\ncuda: Optional[str] = '13.0'\nhip: Optional[str] = None\n";
  EXPECT_EQ(find_assignment(py, "__version__"), "2.11.0+cu130");
  EXPECT_EQ(find_assignment(py, "cuda"), "13.0");
  EXPECT_EQ(find_assignment(py, "hip"), "None");
  EXPECT_FALSE(find_assignment(py, "rocm"));
}

TEST(ProcVersion, OpenAndProprietaryFormats) {
  EXPECT_EQ(parse_nvidia_proc_version(
                "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build  (dvs)"),
            "580.65.06");
  EXPECT_EQ(parse_nvidia_proc_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  470.82.01  Tue Oct 26 2021"),
            "470.82.01");
  EXPECT_FALSE(parse_nvidia_proc_version("garbage"));
  EXPECT_FALSE(parse_nvidia_proc_version("NVRM  version"));
}

TEST(OsRelease, QuotedAndBare) {
  std::string text = "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\n";
  EXPECT_EQ(parse_os_release_value(text, "PRETTY_NAME"), "Debian GNU/Linux 12 (bookworm)");
  EXPECT_EQ(parse_os_release_value(text, "ID"), "debian");
  EXPECT_FALSE(parse_os_release_value(text, "VERSION_ID"));
}

TEST(Mounts, ShmSizeUnits) {
  EXPECT_EQ(parse_shm_size_from_mounts("shm /dev/shm tmpfs rw,size=65536k 0 0\n"), 64ull << 20);
  EXPECT_EQ(parse_shm_size_from_mounts("shm /dev/shm tmpfs rw,size=8g 0 0\n"), 8ull << 30);
  EXPECT_FALSE(parse_shm_size_from_mounts("tmpfs /run tmpfs rw,size=10m 0 0\n"));
}

TEST(PciIds, FindsDeviceInVendorBlockOnly) {
  std::string ids = "10de  NVIDIA Corporation\n\t2330  GH100 [H100 SXM5 80GB]\n\t\t10de 16c1  sub\n"
                    "1af4  Red Hat\n\t2330  not nvidia\n";
  EXPECT_EQ(lookup_pci_name(ids, "10de", "2330"), "GH100 [H100 SXM5 80GB]");
  EXPECT_FALSE(lookup_pci_name(ids, "10de", "1af4"));
  EXPECT_EQ(lookup_pci_name(ids, "1af4", "2330"), "not nvidia");
}

TEST(LdCache, RoundTripsOurWriter) {
  auto bytes = test::make_ld_cache({{"libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1"},
                                    {"libfoo.so.2", "/opt/foo/libfoo.so.2"}});
  auto r = parse_ld_cache(bytes);
  ASSERT_TRUE(r.cache) << r.error;
  ASSERT_EQ(r.cache->entries.size(), 2u);
  EXPECT_EQ(r.cache->entries[1].soname, "libfoo.so.2");
  EXPECT_EQ(r.cache->entries[1].path, "/opt/foo/libfoo.so.2");
}

TEST(LdCache, RejectsGarbageAndTruncation) {
  EXPECT_FALSE(parse_ld_cache("").cache);
  EXPECT_FALSE(parse_ld_cache("not a cache at all, not at all").cache);
  auto bytes = test::make_ld_cache({{"liba.so.1", "/a/liba.so.1"}});
  for (size_t cut = 0; cut < bytes.size(); ++cut) EXPECT_FALSE(parse_ld_cache(bytes.substr(0, cut)).cache) << cut;
}

// The parser agrees with glibc's own reader (ldconfig -p) on this machine's real cache.
TEST(LdCache, MatchesLdconfigOnTheRealCache) {
  RootFs fs("/");
  auto bytes = fs.read("/etc/ld.so.cache", 64u << 20);
  if (!bytes) GTEST_SKIP() << "no /etc/ld.so.cache on this machine";
  auto r = parse_ld_cache(*bytes);
  ASSERT_TRUE(r.cache) << r.error;
  std::unique_ptr<FILE, int (*)(FILE*)> p(::popen("/sbin/ldconfig -p 2>/dev/null", "r"), ::pclose);
  ASSERT_TRUE(p);
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p.get())) out.append(buf, n);
  std::vector<std::string> expected;
  for (const auto& l : lines(out)) {
    auto arrow = l.find(" => ");
    if (arrow == std::string::npos) continue;
    expected.push_back(trim(l.substr(0, l.find(" ("))) + " " + l.substr(arrow + 4));
  }
  ASSERT_FALSE(expected.empty());
  std::vector<std::string> ours;
  for (const auto& e : r.cache->entries) ours.push_back(e.soname + " " + e.path);
  EXPECT_EQ(ours, expected);
}

TEST(Locator, LdLibraryPathThenCacheThenDefaults) {
  test::Fixture f;
  f.write("/opt/a/libx.so.1", "a");
  f.write("/opt/b/libx.so.1", "b");
  f.write("/usr/lib/x86_64-linux-gnu/libx.so.1", "c");
  RootFs fs(f.root);
  EXPECT_EQ(LibraryLocator(fs, std::nullopt).locate("libx.so.1").found_via, "default directory");
  test::write_ld_cache(f, {{"libx.so.1", "/opt/b/libx.so.1"}});
  auto cached = LibraryLocator(fs, std::nullopt).locate("libx.so.1");
  EXPECT_EQ(cached.path, "/opt/b/libx.so.1");
  auto env = LibraryLocator(fs, std::string("/nonexistent:/opt/a")).locate("libx.so.1");
  EXPECT_EQ(env.path, "/opt/a/libx.so.1");
  EXPECT_EQ(env.found_via, "LD_LIBRARY_PATH");
  EXPECT_FALSE(LibraryLocator(fs, std::nullopt).locate("liby.so.1").found());
}

TEST(Locator, ResolvesSymlinksInsideTheRoot) {
  test::Fixture f;
  f.write("/usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06", "x");
  f.link("/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06");
  RootFs fs(f.root);
  auto loc = LibraryLocator(fs, std::nullopt).locate("libcuda.so.1");
  EXPECT_EQ(loc.real_path, "/usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06");
  EXPECT_EQ(loc.version, "580.65.06");
}

TEST(AllocConf, ValidSettingsPass) {
  for (const char* ok : {"expandable_segments:True", "max_split_size_mb:128,garbage_collection_threshold:0.6",
                         " expandable_segments : False , backend:cudaMallocAsync ",
                         "roundup_power2_divisions:[256:1,512:2,>:4],expandable_segments:True",
                         "roundup_power2_divisions:4,pinned_num_register_threads:8,per_process_memory_fraction:1.0"})
    EXPECT_TRUE(check_alloc_conf(ok).problems.empty()) << ok << ": " << check_alloc_conf(ok).problems.front();
}

// One problem, named with `says`, and the corrected value (nullopt: no obvious fix).
void expect_one_problem(const std::string& value, const std::string& says, std::optional<std::string> corrected) {
  auto c = check_alloc_conf(value);
  ASSERT_EQ(c.problems.size(), 1u) << value;
  EXPECT_NE(c.problems[0].find(says), std::string::npos) << c.problems[0];
  EXPECT_EQ(c.corrected, corrected) << value;
}

TEST(AllocConf, CommonMistakesAreNamedAndCorrected) {
  expect_one_problem("expandable_segments=True", "uses '='", "expandable_segments:True");
  expect_one_problem("expandable_segments:true,max_split_size_mb:256", "True or False",
                     "expandable_segments:True,max_split_size_mb:256");
  expect_one_problem("expandable_segment:True", "did you mean 'expandable_segments'", "expandable_segments:True");
  expect_one_problem("max_split_size_mb:128,use_magic:1", "unknown key 'use_magic'", std::nullopt);
  EXPECT_FALSE(check_alloc_conf("max_split_size_mb:16").corrected) << "too small, no guess";
  EXPECT_EQ(check_alloc_conf("garbage_collection_threshold:1.5").problems.size(), 1u);
  EXPECT_EQ(check_alloc_conf("backend:async").problems.size(), 1u);
  EXPECT_EQ(check_alloc_conf("expandable_segments").problems.size(), 1u);
  EXPECT_EQ(check_alloc_conf("roundup_power2_divisions:[256:1").problems.at(0), "a '[' list is not closed");
}

TEST(VisibleDevices, CudaParsingSemantics) {
  auto v = parse_cuda_visible_devices("0,5,1", 2, {});
  EXPECT_EQ(v.accepted, (std::vector<std::string>{"0"}));
  EXPECT_EQ(v.rejected, (std::vector<std::string>{"5", "1"}));
  EXPECT_TRUE(parse_cuda_visible_devices("", 2, {}).accepted.empty());
  EXPECT_TRUE(parse_cuda_visible_devices("-1", 2, {}).accepted.empty());
  EXPECT_EQ(parse_cuda_visible_devices("1,0", 2, {}).accepted.size(), 2u);
  EXPECT_EQ(parse_cuda_visible_devices("0,0", 2, {}).accepted.size(), 1u);
  EXPECT_EQ(parse_cuda_visible_devices("GPU-0011", 1, {"GPU-00112233-4455"}).accepted.size(), 1u);
  EXPECT_TRUE(parse_cuda_visible_devices("GPU-ffff", 1, {"GPU-00112233-4455"}).accepted.empty());
}

TEST(Compat, DriverMinimumsPerCudaMajor) {
  EXPECT_EQ(min_driver_for_cuda("11.8"), "450.80.02");
  EXPECT_EQ(min_driver_for_cuda("12.1"), "525.60.13");
  EXPECT_EQ(min_driver_for_cuda("13.0"), "580.65.06");
  EXPECT_FALSE(min_driver_for_cuda("9.2"));
  EXPECT_EQ(max_cuda_for_driver("575.51.03"), "12.9");
  EXPECT_EQ(max_cuda_for_driver("470.82.01"), "11.4");
  EXPECT_EQ(cuda_version_string(12080), "12.8");
}

TEST(Compat, DataFilesParseAndEveryRowHasASource) {
  EXPECT_GE(torch_variants().size(), 40u);
  for (const auto& v : torch_variants()) {
    EXPECT_FALSE(v.source.empty()) << v.torch << " " << v.variant;
    EXPECT_TRUE(arch_list_covers(v.arch_list, 9, 0) || arch_list_covers(v.arch_list, 7, 0)) << v.arch_list;
  }
  EXPECT_GE(driver_branch_max_cuda().size(), 20u);
  for (const auto& b : driver_branch_max_cuda()) EXPECT_FALSE(b.source.empty()) << b.branch;
  for (const auto& m : cuda_major_driver_minimums()) EXPECT_FALSE(m.source.empty()) << m.cuda_major;
  auto h100 = gpu_by_pci_id("10de", "2330");
  ASSERT_TRUE(h100);
  EXPECT_EQ(h100->cc_major, 9);
  auto gtx = gpu_by_pci_id("10DE", "1B06");
  ASSERT_TRUE(gtx);
  EXPECT_EQ(gtx->cc_minor, 1);
  EXPECT_FALSE(gpu_by_pci_id("10de", "ffff"));
  EXPECT_EQ(known_arch_list("2.5.1+cu124", "12.4"), "5.0;6.0;7.0;7.5;8.0;8.6;9.0");
  EXPECT_FALSE(arch_list_covers("7.5;8.0;8.6;9.0;10.0;12.0", 6, 1));
  EXPECT_TRUE(arch_list_covers("7.5;8.0;8.6;9.0;10.0;12.0", 8, 9)) << "sm_86 SASS runs on sm_89";
  EXPECT_TRUE(arch_list_covers("8.0;9.0+PTX", 12, 0)) << "PTX JIT";
}

TEST(RootFs, ReadAtAndResolveLoops) {
  test::Fixture f;
  f.write("/a", "0123456789");
  RootFs fs(f.root);
  EXPECT_EQ(fs.read_at("/a", 3, 4), "3456");
  EXPECT_EQ(fs.read_at("/a", 8, 10), "89");
  f.link("/loop1", "/loop2");
  f.link("/loop2", "/loop1");
  EXPECT_FALSE(fs.resolve("/loop1"));
  f.link("/rel", "a");
  EXPECT_EQ(fs.resolve("/rel"), "/a");
  f.link("/escape", "../../../../a");  // ".." never leaves the root
  EXPECT_EQ(fs.resolve("/escape"), "/a");
}

// view_at maps a regular file (from the page below an unaligned offset), cuts a range at the end
// of the file, reads what has no size (/proc here), refuses a FIFO under a root, and records what
// it saw for a capture exactly as read_at would.
TEST(RootFs, ViewAtMapsARangeAndRecordsItAsReadAtDoes) {
  test::Fixture f;
  std::string big(3 * 4096 + 100, 'x');
  big.replace(5000, 7, "release");
  f.write("/big", big);
  RootFs fs(f.root);
  AccessLog log;
  fs.record_into(&log);
  auto v = fs.view_at("/big", 5000, 7);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->text, "release");
  EXPECT_EQ(log.bytes["/big"][5000], "release");
  auto tail = fs.view_at("/big", big.size() - 3, 4096);
  ASSERT_TRUE(tail);
  EXPECT_EQ(tail->text, "xxx");
  auto whole = fs.view_at("/big", 0, 1 << 20);
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->text, big);
  EXPECT_EQ(fs.view_at("/big", big.size() + 5, 10)->text, "");
  EXPECT_FALSE(fs.view_at("/missing", 0, 10));
  ASSERT_EQ(::mkfifo(f.host("/fifo").c_str(), 0644), 0);
  EXPECT_FALSE(fs.view_at("/fifo", 0, 10)) << "a FIFO under a root is never opened";
  RootFs host("/");
  auto version = host.view_at("/proc/self/status", 0, 1 << 20);  // no size: read, not mapped
  ASSERT_TRUE(version);
  EXPECT_NE(version->text.find("Name:"), std::string_view::npos);
}

}  // namespace
}  // namespace dlready

namespace dlready::test {
namespace {

TEST(GpuPeaks, EveryRowParsesAndNamesItsSource) {
  ASSERT_GE(gpu_peaks().size(), 10u);
  for (const auto& p : gpu_peaks()) {
    EXPECT_FALSE(p.source.empty()) << p.match;
    EXPECT_TRUE(p.fp32.has_value()) << p.match;
    if (p.fp16 && p.fp32) {
      EXPECT_GT(*p.fp16, *p.fp32) << p.match << ": Tensor Cores beat fp32";
    }
  }
}

TEST(GpuPeaks, SpecificNamesWinOverFamilies) {
  EXPECT_EQ(gpu_peak_for("NVIDIA H200")->match, "H200");
  EXPECT_EQ(gpu_peak_for("NVIDIA H200 NVL")->match, "H200 NVL");
  EXPECT_EQ(gpu_peak_for("NVIDIA H100 PCIe")->match, "H100 PCIe");
  EXPECT_EQ(gpu_peak_for("NVIDIA H100 80GB HBM3")->match, "H100");
  EXPECT_EQ(*peak_of(*gpu_peak_for("NVIDIA H100 80GB HBM3"), "bf16"), 989.5);
  EXPECT_FALSE(peak_of(*gpu_peak_for("Tesla V100-SXM2-16GB"), "bf16").has_value());
  EXPECT_FALSE(gpu_peak_for("NVIDIA Quadro unknown").has_value());
}

}  // namespace
}  // namespace dlready::test

namespace dlready::test {
namespace {

// The binary hands its busy-machine sample to the module as text: it comes back as it was, and
// anything else (garbage, a start in the future, more busy than total) is no sample.
TEST(Parsers, ABusySampleRoundTripsAsTextAndNothingElseIsOne) {
  BusySample s{1234, 5678, 90, std::chrono::steady_clock::now() - std::chrono::milliseconds(5)};
  auto back = parse_busy_sample(busy_sample_text(s));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->busy, 1234);
  EXPECT_EQ(back->total, 5678);
  EXPECT_EQ(back->own, 90);
  EXPECT_EQ(back->started, s.started);
  auto future = s;
  future.started = std::chrono::steady_clock::now() + std::chrono::hours(1);
  EXPECT_FALSE(parse_busy_sample(busy_sample_text(future)));
  for (const char* bad : {"", "1 2 3", "1 2 3 4 5", "a b c d", "-1 2 3 4", "9 2 3 4", "1 2 3 99999999999999999999999"})
    EXPECT_FALSE(parse_busy_sample(bad)) << bad;
}

TEST(Parsers, LoadAverage) {
  auto l = parse_loadavg("0.52 0.58 0.59 3/456 12345\n");
  ASSERT_TRUE(l.load_1min && l.runnable);
  EXPECT_DOUBLE_EQ(*l.load_1min, 0.52);
  EXPECT_EQ(*l.runnable, 3);
  for (const char* bad : {"", "x y z w", "nan 1 1 1/2 3", "1e300 1 1 9999999999/2 3", "0.5 0.5"}) {
    auto b = parse_loadavg(bad);
    EXPECT_FALSE(b.load_1min && b.runnable) << bad;
  }
}

}  // namespace
}  // namespace dlready::test

namespace dlready::test {
namespace {

// CRC-32C's check value and TensorBoard's masking (the values its Python reader computes).
TEST(Crc32c, CheckValueAndMask) {
  EXPECT_EQ(crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(crc32c(""), 0u);
  uint32_t c = 0xE3069283u;
  EXPECT_EQ(masked_crc32c("123456789"), ((c >> 15) | (c << 17)) + 0xA282EAD8u);
}

}  // namespace
}  // namespace dlready::test
