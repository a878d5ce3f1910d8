// The ELF reader and the ld.so simulation, checked against what the real loader does with the
// same files: programs and libraries are compiled here with RPATH, RUNPATH and $ORIGIN, and our
// answer is compared with `ld.so --list` (same LD_LIBRARY_PATH) for every library it lists.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "os/posix_fs.hpp"
#include "core/text.hpp"
#include "fixture.hpp"
#include "binfmt/elf_reader.hpp"
#include "probe/linux/ld_resolver.hpp"
#include "diagnose/rules.hpp"

namespace dlready::test {
namespace {

const char* kLdSo = "/lib64/ld-linux-x86-64.so.2";

void cc(const std::string& args) {
  ASSERT_EQ(std::system(("cc " + args + " 2>&1").c_str()), 0) << args;
}

// name -> realpath or "not found", from `ld.so --list`.
std::map<std::string, std::string> real_loader(const std::string& binary, const std::string& ld_library_path) {
  std::string env = ld_library_path.empty() ? "env -u LD_LIBRARY_PATH " : "env LD_LIBRARY_PATH=" + ld_library_path + " ";
  std::map<std::string, std::string> m;
  // What ldd does: ld.so in trace mode prints "name => not found" instead of stopping.
  for (const auto& l : lines(command_output(env + "LD_TRACE_LOADED_OBJECTS=1 " + kLdSo + " " + binary + " 2>&1"))) {
    auto arrow = l.find(" => ");
    if (arrow == std::string::npos) continue;
    std::string name = trim(l.substr(0, arrow));
    std::string rest = l.substr(arrow + 4);
    std::string path = rest.substr(0, rest.find(" ("));
    if (path == "not found") {
      m[name] = "not found";
      continue;
    }
    char real[4096];
    m[name] = ::realpath(path.c_str(), real) ? real : path;
  }
  return m;
}

std::map<std::string, std::string> ours(const std::string& binary, const std::string& ld_library_path) {
  RootFs fs("/");
  LibraryLocator loc(fs, ld_library_path.empty() ? std::nullopt : std::optional<std::string>(ld_library_path));
  auto res = LdResolver(fs, loc).resolve(binary);
  EXPECT_EQ(res.error, "");
  std::map<std::string, std::string> m;
  for (const auto& l : res.libraries) {
    if (l.via == "interpreter") continue;  // ld.so --list prints the interpreter without "=>"
    if (!l.path) {
      m[l.name] = "not found";
      continue;
    }
    char real[4096];
    m[l.name] = ::realpath(l.path->c_str(), real) ? real : *l.path;
  }
  return m;
}

struct Built {
  Fixture f;
  std::string t;
  Built() : t(f.root) {
    f.write("/bar.c", "int bar(void) { return 1; }\n");
    f.write("/foo.c", "int bar(void);\nint foo(void) { return bar(); }\n");
    f.write("/foo2.c", "int foo(void) { return 2; }\n");
    f.write("/main.c", "int foo(void);\nint main(void) { return foo(); }\n");
    f.write("/missing.c", "int nothere(void);\nint main(void) { return nothere(); }\n");
    f.write("/nothere.c", "int nothere(void) { return 0; }\n");
    f.mkdir("/liba");
    f.mkdir("/libb");
    f.mkdir("/bin");
    cc("-shared -fPIC -Wl,-soname,libbar.so -o " + t + "/liba/libbar.so " + t + "/bar.c");
    cc("-shared -fPIC -Wl,-soname,libfoo.so -o " + t + "/liba/libfoo.so " + t + "/foo.c -L" + t + "/liba -lbar");
    cc("-shared -fPIC -Wl,-soname,libfoo.so -o " + t + "/libb/libfoo.so " + t + "/foo2.c");
    std::string link = t + "/main.c -L" + t + "/liba -lfoo -Wl,-rpath-link," + t + "/liba";
    cc("-o " + t + "/bin/app_rpath " + link + " -Wl,--disable-new-dtags,-rpath,'$ORIGIN/../liba'");
    cc("-o " + t + "/bin/app_runpath " + link + " -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../liba'");
    cc("-o " + t + "/bin/app_plain " + link);
    cc("-shared -fPIC -Wl,-soname,libnothere.so -o " + t + "/libb/libnothere.so " + t + "/nothere.c");
    cc("-o " + t + "/bin/app_missing " + t + "/missing.c -L" + t + "/libb -lnothere");
    f.remove("/libb/libnothere.so");
  }
};

TEST(Elf, ReadsDynamicSection) {
  Built b;
  RootFs fs("/");
  auto e = read_elf(fs, b.t + "/bin/app_rpath");
  ASSERT_TRUE(e.info) << e.error;
  EXPECT_EQ(e.info->rpath, "$ORIGIN/../liba");
  EXPECT_FALSE(e.info->runpath);
  EXPECT_NE(std::find(e.info->needed.begin(), e.info->needed.end(), "libfoo.so"), e.info->needed.end());
  auto r = read_elf(fs, b.t + "/bin/app_runpath");
  ASSERT_TRUE(r.info);
  EXPECT_EQ(r.info->runpath, "$ORIGIN/../liba");
  auto lib = read_elf(fs, b.t + "/liba/libfoo.so", /*sections=*/true);
  ASSERT_TRUE(lib.info);
  EXPECT_EQ(lib.info->soname, "libfoo.so");
  bool has_dynamic = false;
  for (const auto& s : lib.info->sections) has_dynamic |= s.name == ".dynamic";
  EXPECT_TRUE(has_dynamic);
  EXPECT_FALSE(read_elf(fs, b.t + "/foo.c").info);
}

TEST(Elf, GarbageAndTruncationAreErrors) {
  Built b;
  RootFs fs("/");
  auto bytes = fs.read(b.t + "/liba/libfoo.so", 1 << 24).value();
  for (size_t cut : {size_t{0}, size_t{10}, size_t{63}, size_t{64}, size_t{200}, bytes.size() / 2}) {
    std::string part = bytes.substr(0, cut);
    auto e = parse_elf([&](uint64_t off, size_t len) -> std::optional<std::string> {
      if (off >= part.size()) return std::string();
      return part.substr(off, len);
    }, "x", true);
    if (cut < 64) {
      EXPECT_FALSE(e.info) << cut;  // the header alone is 64 bytes
    }
  }
}

// Symbol versions: libuser.so needs VERS_2 of libver.so; an older libver.so (VERS_1 only) found
// first through LD_LIBRARY_PATH makes ld.so stop with "version `VERS_2' not found". The doctor
// predicts that line (symbol-version-missing) without running anything.
TEST(LdResolver, PredictsTheLoadersMissingVersionError) {
  if (!path_exists(kLdSo)) GTEST_SKIP() << "no " << kLdSo;
  Fixture f;
  const std::string t = f.root;
  f.write("/v1.map", "VERS_1 { global: old_fn; local: *; };\n");
  f.write("/v2.map", "VERS_1 { global: old_fn; local: *; };\nVERS_2 { global: new_fn; } VERS_1;\n");
  f.write("/ver.c", "int old_fn(void) { return 1; }\nint new_fn(void) { return 2; }\n");
  f.write("/user.c", "int new_fn(void);\nint use(void) { return new_fn(); }\n");
  f.write("/main.c", "int use(void);\nint main(void) { return use(); }\n");
  f.mkdir("/new");
  f.mkdir("/old");
  f.mkdir("/bin");
  cc("-shared -fPIC -Wl,-soname,libver.so -Wl,--version-script=" + t + "/v2.map -o " + t + "/new/libver.so " + t + "/ver.c");
  cc("-shared -fPIC -Wl,-soname,libver.so -Wl,--version-script=" + t + "/v1.map -o " + t + "/old/libver.so " + t + "/ver.c");
  cc("-shared -fPIC -Wl,-soname,libuser.so -o " + t + "/new/libuser.so " + t + "/user.c -L" + t + "/new -lver");
  cc("-o " + t + "/bin/app " + t + "/main.c -L" + t + "/new -luser -Wl,-rpath-link," + t +
     "/new -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../new'");
  RootFs fs("/");
  auto resolve = [&](const std::string& llp) {
    LibraryLocator loc(fs, llp.empty() ? std::nullopt : std::optional<std::string>(llp));
    return LdResolver(fs, loc).resolve(t + "/bin/app");
  };
  EXPECT_TRUE(resolve("").missing_versions.empty());
  auto res = resolve(t + "/old");
  ASSERT_EQ(res.missing_versions.size(), 1u);
  const auto& m = res.missing_versions[0];
  std::string predicted = m.library + ": version `" + m.version + "' not found (required by " + m.required_by + ")";
  // ld.so names libuser.so by the unnormalised RUNPATH entry (bin/../new): compare real paths.
  auto real = command_output("env LD_LIBRARY_PATH=" + t + "/old " + t + "/bin/app 2>&1");
  auto by = real.find("(required by ");
  ASSERT_NE(by, std::string::npos) << real;
  std::string real_by = real.substr(by + 13, real.find(')', by) - by - 13);
  char a[4096], b[4096];
  EXPECT_EQ(std::string(::realpath(real_by.c_str(), a)), std::string(::realpath(m.required_by.c_str(), b)));
  EXPECT_NE(real.find(m.library + ": version `" + m.version + "' not found"), std::string::npos)
      << "ours: " << predicted << "\nld.so: " << real;
  // The doctor's finding, with where the old copy came from and what to do.
  Fixture machine;
  add_base_system(machine);
  auto o = machine.options();
  o.root = "/";
  o.env = {{"LD_LIBRARY_PATH", t + "/old"}};
  o.binaries = {t + "/bin/app"};
  o.driver_probe = false;
  o.user.reset();
  auto report = diagnose(gather_facts(o).facts);
  const Finding* x = nullptr;
  for (const auto& y : report.findings)
    if (y.id == "symbol-version-missing") x = &y;
  ASSERT_TRUE(x);
  EXPECT_EQ(x->evidence.at(0), predicted);
  EXPECT_EQ(x->evidence.at(1), t + "/old/libver.so was found through LD_LIBRARY_PATH");
  EXPECT_NE(x->fix.at(0).find("take " + t + "/old out of LD_LIBRARY_PATH"), std::string::npos) << x->fix.at(0);
}

TEST(LdResolver, MatchesTheRealLoader) {
  if (!path_exists(kLdSo)) GTEST_SKIP() << "no " << kLdSo;
  Built b;
  for (const char* app : {"app_rpath", "app_runpath", "app_plain", "app_missing"}) {
    for (const std::string& llp : {std::string(), b.t + "/libb", b.t + "/liba", b.t + "/libb:" + b.t + "/liba"}) {
      std::string bin = b.t + "/bin/" + app;
      auto real = real_loader(bin, llp);
      ASSERT_FALSE(real.empty()) << bin;
      EXPECT_EQ(ours(bin, llp), real) << app << " with LD_LIBRARY_PATH=" << llp;
    }
  }
}

TEST(LdResolver, RunpathIsNotInheritedRpathIs) {
  Built b;
  RootFs fs("/");
  LibraryLocator loc(fs, std::nullopt);
  auto rp = LdResolver(fs, loc).resolve(b.t + "/bin/app_rpath");
  auto rn = LdResolver(fs, loc).resolve(b.t + "/bin/app_runpath");
  auto find = [](const Resolution& r, const std::string& n) {
    for (const auto& l : r.libraries)
      if (l.name == n) return l;
    return ResolvedLibrary{};
  };
  EXPECT_EQ(find(rp, "libbar.so").via, "RPATH");
  EXPECT_FALSE(find(rn, "libbar.so").path) << "a RUNPATH does not serve the dependencies of dependencies";
  EXPECT_FALSE(find(rn, "libbar.so").searched.empty());
  LibraryLocator with_env(fs, b.t + "/libb:" + b.t + "/liba");
  auto shadow = LdResolver(fs, with_env).resolve(b.t + "/bin/app_runpath");
  auto foo = find(shadow, "libfoo.so");
  EXPECT_EQ(foo.via, "LD_LIBRARY_PATH");
  ASSERT_FALSE(foo.later_copies.empty()) << "the RUNPATH copy is shadowed";
  EXPECT_NE(foo.later_copies[0].find("/liba/libfoo.so"), std::string::npos);
}

// The real pinned wheel: libtorch_cuda.so's whole closure, as the loader resolves it.
TEST(LdResolver, MatchesTheRealLoaderOnThePinnedTorchWheel) {
  std::string venv = std::string(std::getenv("HOME") ? std::getenv("HOME") : "/root") +
                     "/.cache/dlready/venv-torch2.11.0-tv0.26.0/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so";
  if (!path_exists(venv) || !path_exists(kLdSo)) GTEST_SKIP() << "pinned venv not installed";
  auto real = real_loader(venv, "");
  EXPECT_GT(real.size(), 10u);
  EXPECT_EQ(ours(venv, ""), real);
}

}  // namespace
}  // namespace dlready::test
