// The Windows doctor (dlready.exe, cross-compiled with mingw-w64) run under Debian's wine in a
// private prefix: the registry values each scenario needs are set with `wine reg add`, the driver's
// files are the suite's fakes (tests/windows/) copied into the prefix's System32. The prefix is
// made on first use (about 10 s) and kept in the build tree; CTest runs these one at a time.
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "os/posix_fs.hpp"
#include "core/text.hpp"
#include "binfmt/pe_image.hpp"
#include "pe_builder.hpp"

namespace dlready::test {
namespace {

struct CommandRun {
  int status = -1;
  std::string out;
};

CommandRun run_command(const std::string& cmd) {
  CommandRun r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof buf, p)) r.out.append(buf, n);
  int status = ::pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

constexpr const char* kDisplayClass =
    "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}";
constexpr const char* kVersionKey = "HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion";

std::string wine_program() {
  for (const char* w : {"/usr/lib/wine/wine64", "/usr/bin/wine64"})
    if (::access(w, X_OK) == 0) return w;
  return "";
}

class WindowsDoctor : public ::testing::Test {
 protected:
  void SetUp() override {
    if (wine_program().empty()) GTEST_SKIP() << "wine64 is not installed (scripts/setup.sh installs it)";
    if (::access(DLREADY_WINDOWS_EXE, R_OK) != 0)
      GTEST_SKIP() << DLREADY_WINDOWS_EXE << " was not built (mingw-w64 missing: scripts/setup.sh installs it)";
    // A machine as the scenario describes it, from a known start: Windows 10 22H2, no adapter, no driver.
    wine("reg add \"HKCU\\Software\\Wine\" /v Version /d win10 /f");
    wine(std::string("reg add \"") + kVersionKey + "\" /v ProductName /d \"Windows 10 Pro\" /f");
    wine(std::string("reg add \"") + kVersionKey + "\" /v DisplayVersion /d 22H2 /f");
    for (const char* instance : {"0000", "0001"}) wine(std::string("reg delete \"") + kDisplayClass + "\\" + instance + "\" /f");
    remove_tree(system32() + "/nvcuda.dll");
    remove_tree(system32() + "/nvcuda.conf");
    remove_tree(system32() + "/nvml.dll");
    remove_tree(system32() + "/fake_driver.conf");
    wine("reg delete \"HKLM\\SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers\" /v TdrDelay /f");
    wine("reg delete \"HKCU\\Software\\Python\" /f");
    wine("reg add \"HKLM\\SYSTEM\\CurrentControlSet\\Control\\FileSystem\" /v LongPathsEnabled /t REG_DWORD /d 1 /f");
    remove_tree(prefix() + "/drive_c/Python312");
    remove_tree(prefix() + "/drive_c/\u5f20\u4e09");  // 张三: PathsWithChineseCharacters...
    // Wine's own copy of the Visual C++ runtime in System32 (a fresh Windows has none either).
    remove_tree(system32() + "/vcruntime140_1.dll");
    if (::access((system32() + "/dxgi.dll.wine").c_str(), F_OK) == 0)
      ::rename((system32() + "/dxgi.dll.wine").c_str(), (system32() + "/dxgi.dll").c_str());
    remove_tree(system32() + "/dxgi.conf");
    wine("reg delete \"HKCU\\Software\\Microsoft\\DirectX\\UserGpuPreferences\" /f");
  }

  // A Python 3.12 the py launcher knows (C:\Python312), with the torch `version` in its site-packages.
  void add_python_with_torch(const std::string& version, const std::string& cuda) {
    std::string sp = prefix() + "/drive_c/Python312/Lib/site-packages";
    ASSERT_EQ(run_command("mkdir -p '" + sp + "/torch/lib' '" + sp + "/torch-" + version + ".dist-info'").status, 0);
    std::ofstream(sp + "/torch/version.py") << "from typing import Optional\n__version__ = '" << version
                                             << "'\ncuda: Optional[str] = " << cuda << "\n";
    wine("reg add \"HKCU\\Software\\Python\\PythonCore\\3.12\\InstallPath\" /ve /d \"C:\\Python312\" /f");
  }

  static std::string site_packages() { return prefix() + "/drive_c/Python312/Lib/site-packages"; }
  // torch\lib's DLLs (the suite's mingw-built fakes: tests/windows/fake_torch_dll.c) and python.exe
  // (the suite's empty x64 program) as a python.org install has them.
  static void add_torch_dlls(const std::vector<std::string>& dlls) {
    for (const auto& dll : dlls) copy_fake(dll, site_packages() + "/torch/lib/" + dll);
    copy_fake("empty_program.exe", prefix() + "/drive_c/Python312/python.exe");
  }
  static void copy_fake(const std::string& fake, const std::string& to) {
    std::ifstream src(std::string(DLREADY_WINDOWS_FAKES) + "/" + fake, std::ios::binary);
    ASSERT_TRUE(src.good()) << fake;
    std::ofstream(to, std::ios::binary) << src.rdbuf();
  }

  static std::string prefix() { return std::string(DLREADY_TEST_BINARY_DIR) + "/wine-prefix"; }
  static std::string system32() { return prefix() + "/drive_c/windows/system32"; }

  // Wine names the Windows user after the Unix one.
  static std::string wine_user() {
    const char* user = std::getenv("USER");
    if (user && *user) return user;
    const passwd* pw = ::getpwuid(::getuid());
    return pw ? pw->pw_name : "root";
  }

  // `wine <command>` in the suite's prefix: its exit status and stdout (with `stderr`: and what the
  // program wrote to stderr; wine's own chatter is off).
  static CommandRun wine(const std::string& command, bool stderr_too = false, const std::string& path_first = "",
                         const std::string& dll_overrides = "") {
    // LANG: wine maps Unix file names and arguments through the locale's encoding (UTF-8 here).
    return run_command("LANG=C.UTF-8 WINEPREFIX=" + shell_quote(prefix()) + " WINEDEBUG=-all " +
                       (path_first.empty() ? "" : "WINEPATH=" + shell_quote(path_first) + " ") +
                       (dll_overrides.empty() ? "" : "WINEDLLOVERRIDES=" + shell_quote(dll_overrides) + " ") +
                       wine_program() + " " + command + (stderr_too ? " 2>&1" : " 2>/dev/null"));
  }
  // dxgi.dll is off unless a scenario brings its own: wine's DXGI, once loaded, brings up wine's
  // display devices, which rewrite the display class keys the scenarios set.
  static CommandRun doctor(const std::string& flags, const std::string& dll_overrides = "dxgi=") {
    return wine(shell_quote(DLREADY_WINDOWS_EXE) + " doctor --no-color " + flags, false, "", dll_overrides);
  }
  // The suite's dxgi.dll in System32 (wine's own kept beside it and put back by SetUp), with the
  // adapters `conf` names; loaded instead of wine's only by a run with WINEDLLOVERRIDES=dxgi=n.
  static void install_fake_dxgi(const std::string& conf) {
    if (::access((system32() + "/dxgi.dll.wine").c_str(), F_OK) != 0) {
      ASSERT_EQ(::rename((system32() + "/dxgi.dll").c_str(), (system32() + "/dxgi.dll.wine").c_str()), 0);
    }
    copy_fake("dxgi.dll", system32() + "/dxgi.dll");
    std::ofstream(system32() + "/dxgi.conf", std::ios::binary) << conf;
  }
  static void add_adapter(const std::string& instance, const std::string& matching_id, const std::string& name,
                          const std::string& driver_version) {
    std::string key = std::string("\"") + kDisplayClass + "\\" + instance + "\"";
    wine("reg add " + key + " /v MatchingDeviceId /d \"" + matching_id + "\" /f");
    wine("reg add " + key + " /v DriverDesc /d \"" + name + "\" /f");
    wine("reg add " + key + " /v DriverVersion /d " + driver_version + " /f");
    wine("reg add " + key + " /v HardwareInformation.qwMemorySize /t REG_QWORD /d 25769803776 /f");
  }
};

// The fake nvcuda.dll in System32, answering as `conf` says (tests/windows/fake_nvcuda.c).
void install_fake_nvcuda(const std::string& system32, const std::string& conf) {
  std::ifstream src(DLREADY_WINDOWS_FAKES "/nvcuda.dll", std::ios::binary);
  std::ofstream(system32 + "/nvcuda.dll", std::ios::binary) << src.rdbuf();
  std::ofstream(system32 + "/nvcuda.conf", std::ios::binary) << conf;
}

nlohmann::json parse(const CommandRun& run) {
  auto j = nlohmann::json::parse(run.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << run.out.substr(0, 400);
  return j;
}

bool has_finding(const nlohmann::json& report, const std::string& id) {
  for (const auto& x : report.at("findings"))
    if (x.at("id") == id) return true;
  return false;
}

TEST_F(WindowsDoctor, NoNvidiaGpuIsSaidInWindowsWords) {
  add_adapter("0001", "pci\\ven_8086&dev_a780", "Intel(R) UHD Graphics 770", "31.0.101.4502");
  auto run = doctor("--json");
  EXPECT_EQ(run.status, 1);
  auto j = parse(run);
  const auto& os = j.at("facts").at("os");
  EXPECT_EQ(os.at("id"), "windows");
  EXPECT_EQ(os.at("pretty_name"), "Windows 10 Pro 22H2");
  EXPECT_TRUE(starts_with(os.at("kernel").get<std::string>(), "10.0.")) << os.at("kernel");
  EXPECT_EQ(os.at("arch"), "x86_64");
  EXPECT_GT(os.at("memory_bytes").get<uint64_t>(), 0u);
  ASSERT_TRUE(has_finding(j, "no-nvidia-gpu"));
  EXPECT_EQ(j.at("verdict").at("cuda_usable"), false);
  auto text = doctor("");
  EXPECT_NE(text.out.find("no display adapter of vendor 10de (NVIDIA) among those Windows lists"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("other display adapter: Intel(R) UHD Graphics 770 (display adapter 0001, driver 31.0.101.4502)"),
            std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("/sys/"), std::string::npos) << "no Linux words on Windows:\n" << text.out;
}

TEST_F(WindowsDoctor, AnNvidiaAdapterWithoutItsDriverIsNamed) {
  add_adapter("0000", "pci\\ven_10de&dev_2684&subsys_167c10de", "NVIDIA GeForce RTX 4090", "32.0.15.6094");
  add_adapter("0001", "pci\\ven_8086&dev_a780", "Intel(R) UHD Graphics 770", "31.0.101.4502");
  auto run = doctor("");
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.out.find("display adapter 0000: NVIDIA GeForce RTX 4090 [10de:2684], driver 560.94, 24.0 GiB dedicated "
                         "memory"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("Intel(R) UHD Graphics 770 [8086:a780]"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("[windows-nvcuda-missing]"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("nvcuda.dll is not in C:\\windows\\system32"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("[no-nvidia-gpu]"), std::string::npos) << run.out;
}

TEST_F(WindowsDoctor, TheDriversFilesAreFoundWithTheirVersion) {
  add_adapter("0000", "pci\\ven_10de&dev_2684&subsys_167c10de", "NVIDIA GeForce RTX 4090", "32.0.15.6094");
  install_fake_nvcuda(system32(), "");
  auto run = doctor("--json --no-driver-probe");
  EXPECT_EQ(run.status, 0) << run.out.substr(0, 600);
  auto j = parse(run);
  const auto& libcuda = j.at("facts").at("libcuda");
  EXPECT_EQ(libcuda.at("path"), "C:\\windows\\system32\\nvcuda.dll");
  EXPECT_EQ(libcuda.at("version"), "560.94");  // from the DLL's version resource, as nvidia-smi prints it
  EXPECT_FALSE(has_finding(j, "windows-nvcuda-missing"));
  EXPECT_TRUE(j.at("verdict").at("cuda_usable").is_null()) << "the driver was not asked: no claim either way";
}

// The issue's first scenario: CUDA usable. nvcuda.dll answers in a child process (dlready.exe
// --driver-child), through the same calls and wire as the Linux probe.
TEST_F(WindowsDoctor, CudaUsableWhenTheDriverAnswers) {
  add_adapter("0000", "pci\\ven_10de&dev_2684&subsys_167c10de", "NVIDIA GeForce RTX 4090", "32.0.15.6094");
  install_fake_nvcuda(system32(), "devices=1\ndev0.name=NVIDIA GeForce RTX 4090\ndev0.cc_major=8\ndev0.cc_minor=9\n"
                                  "dev0.sm_count=128\ndev0.memory_mib=24564\ndriver_version=12060\n");
  auto run = doctor("--json");
  EXPECT_EQ(run.status, 0) << run.out.substr(0, 800);
  auto j = parse(run);
  const auto& drv = j.at("facts").at("driver_api");
  EXPECT_EQ(drv.at("status"), "ok");
  EXPECT_EQ(drv.at("init_result"), 0);
  EXPECT_EQ(drv.at("driver_version"), 12060);
  ASSERT_EQ(drv.at("devices").size(), 1u);
  EXPECT_EQ(drv.at("devices")[0].at("name"), "NVIDIA GeForce RTX 4090");
  EXPECT_EQ(drv.at("devices")[0].at("cc_major"), 8);
  EXPECT_EQ(j.at("verdict").at("cuda_usable"), true);
  auto text = doctor("");
  EXPECT_NE(text.out.find("cuda:0 NVIDIA GeForce RTX 4090, sm_89, 24.0 GiB, 128 SMs"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("CUDA is usable: 1 GPU(s), driver 560.94 (CUDA 12.6)."), std::string::npos) << text.out;
}

// The issue's "a CPU wheel on an NVIDIA machine": the py launcher's Python has torch +cpu while the
// driver answers; the fix is the CUDA build for this driver. With the CUDA build, nothing to fix.
TEST_F(WindowsDoctor, ACpuWheelOnAnNvidiaMachineAndTheCudaWheel) {
  add_adapter("0000", "pci\\ven_10de&dev_2684&subsys_167c10de", "NVIDIA GeForce RTX 4090", "32.0.15.6094");
  install_fake_nvcuda(system32(), "devices=1\ndriver_version=12060\n");
  add_python_with_torch("2.5.1+cpu", "None");
  auto run = doctor("--json");
  EXPECT_EQ(run.status, 1) << run.out.substr(0, 800);
  auto j = parse(run);
  const auto& envs = j.at("facts").at("python_envs");
  ASSERT_EQ(envs.size(), 1u) << envs;
  EXPECT_EQ(envs[0].at("prefix"), "C:\\Python312");
  EXPECT_EQ(envs[0].at("python_version"), "3.12");
  EXPECT_EQ(envs[0].at("torch")[0].at("version"), "2.5.1+cpu");
  ASSERT_TRUE(has_finding(j, "torch-cpu-only"));
  auto text = doctor("");
  EXPECT_NE(text.out.find("torch 2.5.1+cpu in C:\\Python312\\Lib\\site-packages: torch.version.cuda is None"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("--index-url https://download.pytorch.org/whl/cu"), std::string::npos) << text.out;
  remove_tree(prefix() + "/drive_c/Python312");
  add_python_with_torch("2.5.1+cu124", "'12.4'");
  auto cuda = parse(doctor("--json"));
  EXPECT_FALSE(has_finding(cuda, "torch-cpu-only"));
  ASSERT_EQ(cuda.at("verdict").at("torch").size(), 1u);
  EXPECT_EQ(cuda.at("verdict").at("torch")[0].at("cuda_available"), true);
  EXPECT_EQ(cuda.at("verdict").at("cuda_usable"), true);
}

// Issue 59 item 3, written once in rules_python: NumPy 2 beside a torch built for NumPy 1 is named on
// Windows too, read by the Windows source (numpy's dist-info in the environment of that torch).
TEST_F(WindowsDoctor, NumPy2BesideATorchBuiltForNumPy1) {
  add_adapter("0000", "pci\\ven_10de&dev_2684&subsys_167c10de", "NVIDIA GeForce RTX 4090", "32.0.15.6094");
  install_fake_nvcuda(system32(), "devices=1\ndriver_version=12060\n");
  add_python_with_torch("2.2.2+cu121", "'12.1'");
  ASSERT_EQ(run_command("mkdir -p '" + site_packages() + "/numpy-2.1.3.dist-info'").status, 0);
  auto j = parse(doctor("--json"));
  ASSERT_TRUE(has_finding(j, "torch-needs-numpy1")) << j.at("findings").dump(1);
  for (const auto& x : j.at("findings"))
    if (x.at("id") == "torch-needs-numpy1")
      EXPECT_EQ(x.at("fix")[0], "C:\\Python312\\python.exe -m pip install \"numpy<2\"") << x.dump(1);
}

// The issue's "a driver too old for the wheel's CUDA": a CUDA 13.0 wheel on a 560 driver (CUDA 13
// needs an R580 driver on Windows, data/cuda_driver.tsv); the driver's own floor, not Linux's.
TEST_F(WindowsDoctor, ADriverTooOldForTheWheelsCuda) {
  add_adapter("0000", "pci\\ven_10de&dev_2684&subsys_167c10de", "NVIDIA GeForce RTX 4090", "32.0.15.6094");
  install_fake_nvcuda(system32(), "devices=1\ndriver_version=12060\n");
  add_python_with_torch("2.9.0+cu130", "'13.0'");
  auto run = doctor("");
  EXPECT_EQ(run.status, 1) << run.out;
  EXPECT_NE(run.out.find("[driver-too-old]"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("is built for CUDA 13.0, which needs a Windows driver >= 580"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("NVIDIA driver 560.94"), std::string::npos) << run.out;
  remove_tree(prefix() + "/drive_c/Python312");
  add_python_with_torch("2.9.0+cu126", "'12.6'");  // 12.x needs 528.33: 560.94 is new enough
  EXPECT_EQ(doctor("").out.find("[driver-too-old]"), std::string::npos);
}

// Two things that break pip and Python on a fresh Windows: LongPathsEnabled off (torch's wheel has
// paths over 260 characters), and the Microsoft Store's python.exe stub first on PATH.
TEST_F(WindowsDoctor, LongPathsOffAndTheStoreStubFirstOnPath) {
  wine("reg add \"HKLM\\SYSTEM\\CurrentControlSet\\Control\\FileSystem\" /v LongPathsEnabled /t REG_DWORD /d 0 /f");
  std::string apps = "C:\\users\\" + wine_user() + "\\AppData\\Local\\Microsoft\\WindowsApps";
  std::string apps_unix = prefix() + "/drive_c/users/" + wine_user() + "/AppData/Local/Microsoft/WindowsApps";
  ASSERT_EQ(run_command("mkdir -p '" + apps_unix + "'").status, 0);
  std::ifstream stub(DLREADY_WINDOWS_FAKES "/empty_program.exe", std::ios::binary);
  std::ofstream(apps_unix + "/python.exe", std::ios::binary) << stub.rdbuf();
  add_python_with_torch("2.5.1+cpu", "None");
  auto run = wine(shell_quote(DLREADY_WINDOWS_EXE) + " doctor --no-color", false, apps + ";C:\\Python312");
  remove_tree(apps_unix + "/python.exe");
  EXPECT_NE(run.out.find("[windows-long-paths-disabled]"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("New-ItemProperty -Path \"HKLM:\\SYSTEM\\CurrentControlSet\\Control\\FileSystem\" -Name "
                         "LongPathsEnabled -Value 1"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("[windows-python-store-stub]"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("the first python.exe on PATH is " + apps + "\\python.exe"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("a Python the py launcher knows: C:\\Python312"), std::string::npos) << run.out;
  wine("reg add \"HKLM\\SYSTEM\\CurrentControlSet\\Control\\FileSystem\" /v LongPathsEnabled /t REG_DWORD /d 1 /f");
  auto fixed = doctor("");  // long paths on, the stub gone
  EXPECT_EQ(fixed.out.find("[windows-long-paths-disabled]"), std::string::npos) << fixed.out;
  EXPECT_EQ(fixed.out.find("[windows-python-store-stub]"), std::string::npos) << fixed.out;
}

// --redact for a public issue: the user, the profile folder and the computer's name are gone from
// the JSON and the Markdown, replaced by placeholders; without it they are there.
TEST_F(WindowsDoctor, RedactHidesTheUserTheProfileAndTheComputer) {
  std::string computer = trim(wine("cmd /c echo %COMPUTERNAME%").out);
  ASSERT_FALSE(computer.empty());
  std::string profile = "C:\\users\\" + wine_user();
  auto plain = parse(doctor("--json"));
  ASSERT_EQ(plain.at("facts").at("environment").at("USERPROFILE"), profile) << "unredacted, the profile is named";
  auto j = parse(doctor("--json --redact"));
  const auto& env = j.at("facts").at("environment");
  EXPECT_EQ(env.at("USERPROFILE"), "<home-1>") << env;
  EXPECT_EQ(env.at("COMPUTERNAME"), "<host-1>") << env;
  EXPECT_EQ(j.dump().find(nlohmann::json(profile).dump().substr(1)), std::string::npos) << j.dump().substr(0, 600);
  auto md = doctor("--markdown --redact");
  EXPECT_EQ(md.out.find(profile), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("> Redacted (`--redact`): "), std::string::npos) << md.out;
}

// CUDA toolkits from CUDA_PATH: one of another CUDA major than the wheel's is what breaks building
// extensions (the wheel itself carries its runtime; the section says so when there is none).
TEST_F(WindowsDoctor, AToolkitOfAnotherCudaMajorThanTheWheel) {
  std::string tk = prefix() + "/drive_c/CUDA/v11.8";
  ASSERT_EQ(run_command("mkdir -p '" + tk + "/bin'").status, 0);
  std::ofstream(tk + "/version.json") << R"({"cuda": {"name": "CUDA SDK", "version": "11.8.0"}})";
  std::ifstream exe(DLREADY_WINDOWS_FAKES "/empty_program.exe", std::ios::binary);
  std::ofstream(tk + "/bin/nvcc.exe", std::ios::binary) << exe.rdbuf();
  add_python_with_torch("2.5.1+cu124", "'12.4'");
  auto run = run_command("CUDA_PATH='C:\\CUDA\\v11.8' WINEPREFIX=" + shell_quote(prefix()) + " WINEDEBUG=-all " +
                         wine_program() + " " + shell_quote(DLREADY_WINDOWS_EXE) + " doctor --no-color 2>/dev/null");
  remove_tree(prefix() + "/drive_c/CUDA");
  EXPECT_NE(run.out.find("toolkit 11.8.0 at C:\\CUDA\\v11.8 (nvcc)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("[cuda-toolkit-torch-mismatch]"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("uses CUDA 12.4"), std::string::npos) << run.out;
  auto none = doctor("");
  EXPECT_NE(none.out.find("no CUDA toolkit (CUDA_PATH unset): none is needed to run PyTorch"), std::string::npos)
      << none.out;
}

// A driver that hangs in cuInit or crashes in it takes only the child: the doctor names it.
TEST_F(WindowsDoctor, AHangingOrCrashingNvcudaIsNamedNotInherited) {
  add_adapter("0000", "pci\\ven_10de&dev_2684&subsys_167c10de", "NVIDIA GeForce RTX 4090", "32.0.15.6094");
  install_fake_nvcuda(system32(), "behaviour=hang\n");
  auto t0 = std::chrono::steady_clock::now();
  auto hang = doctor("--probe-timeout-ms 2000");
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(hang.status, 1) << hang.out;
  EXPECT_LT(seconds, 15.0) << "the hanging child is ended at the timeout";
  EXPECT_NE(hang.out.find("[driver-probe-hang]"), std::string::npos) << hang.out;
  EXPECT_NE(hang.out.find("nvcuda.dll: initialisation did not return"), std::string::npos) << hang.out;
  install_fake_nvcuda(system32(), "behaviour=crash\n");
  auto crash = doctor("");
  EXPECT_EQ(crash.status, 1) << crash.out;
  EXPECT_NE(crash.out.find("[driver-probe-crash]"), std::string::npos) << crash.out;
  EXPECT_NE(crash.out.find("crashed with exception 0xC0000005 during initialisation"), std::string::npos) << crash.out;
  install_fake_nvcuda(system32(), "init=100\n");
  auto refused = doctor("");
  EXPECT_NE(refused.out.find("[cuda-init-failed]"), std::string::npos) << refused.out;
  EXPECT_NE(refused.out.find("cuInit returned 100 CUDA_ERROR_NO_DEVICE"), std::string::npos) << refused.out;
}

// The issue's WinError 126 scenario: c10.dll imports vcruntime140_1.dll, which neither Python's
// folder nor System32 has; the doctor names the file the error message does not.
TEST_F(WindowsDoctor, AMissingVcRuntimeIsNamedBehindWinError126) {
  add_python_with_torch("2.5.1+cpu", "None");
  add_torch_dlls({"c10.dll", "torch_cpu.dll"});
  auto run = doctor("--json");
  EXPECT_EQ(run.status, 1) << run.out.substr(0, 600);
  auto j = parse(run);
  ASSERT_TRUE(has_finding(j, "windows-vc-runtime-missing")) << j.at("findings").dump(1);
  const auto& check = j.at("facts").at("windows").at("torch_dlls").at(0);
  EXPECT_EQ(check.at("torch_lib"), "C:\\Python312\\Lib\\site-packages\\torch\\lib");
  EXPECT_EQ(check.at("python_exe"), "C:\\Python312\\python.exe");
  EXPECT_EQ(check.at("python_machine"), "x64");
  EXPECT_EQ(check.at("torch_machine"), "x64");
  EXPECT_EQ(check.at("dlls_read"), 2) << "c10.dll and torch_cpu.dll; torch_cpu.dll's c10.dll is torch\\lib's";
  ASSERT_EQ(check.at("missing").size(), 1u) << check.dump(1);
  EXPECT_EQ(check.at("missing")[0].at("name"), "vcruntime140_1.dll");
  EXPECT_EQ(j.at("verdict").at("torch")[0].at("reason"), "import torch fails: vcruntime140_1.dll is missing (WinError 126)");
  auto text = doctor("");
  EXPECT_NE(text.out.find("vcruntime140_1.dll, imported by C:\\Python312\\Lib\\site-packages\\torch\\lib\\c10.dll, is "
                          "in none of the"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("Error loading \"C:\\Python312\\Lib\\site-packages\\torch\\lib\\c10.dll\" or one of its "
                          "dependencies."),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("https://aka.ms/vs/17/release/vc_redist.x64.exe"), std::string::npos) << text.out;
  // A PATH folder on a server that is gone: named, not read (the doctor does not wait on the network).
  auto unc = parse(wine(shell_quote(DLREADY_WINDOWS_EXE) + " doctor --json", false, "\\\\nosuchserver\\share", "dxgi="));
  const auto& searched = unc.at("facts").at("windows").at("torch_dlls")[0].at("search_path");
  EXPECT_NE(std::find(searched.begin(), searched.end(), "\\\\nosuchserver\\share (a network folder: not read)"),
            searched.end())
      << searched.dump(1);
  // The runtime beside python.exe (where python.org's installer puts it): found there and followed.
  copy_fake("vcruntime140_1.dll", prefix() + "/drive_c/Python312/vcruntime140_1.dll");
  auto fixed = parse(doctor("--json"));
  EXPECT_FALSE(has_finding(fixed, "windows-vc-runtime-missing"));
  EXPECT_EQ(fixed.at("facts").at("windows").at("torch_dlls")[0].at("missing").size(), 0u);
  EXPECT_EQ(fixed.at("facts").at("windows").at("torch_dlls")[0].at("dlls_read"), 3);
  EXPECT_EQ(fixed.at("verdict").at("torch")[0].at("reason"), "CPU-only build (torch.version.cuda is None)");
}

// torch 2.4.0's fbgemm.dll imported LLVM's OpenMP, which no redistributable installs.
TEST_F(WindowsDoctor, AMissingOpenMpDllIsNamedWithItsWayOut) {
  add_python_with_torch("2.4.0+cpu", "None");
  add_torch_dlls({"fbgemm.dll"});
  auto run = doctor("");
  EXPECT_EQ(run.status, 1) << run.out;
  EXPECT_NE(run.out.find("[windows-torch-dll-missing]"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("libomp140.x86_64.dll, imported by C:\\Python312\\Lib\\site-packages\\torch\\lib\\fbgemm.dll"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("pytorch#131662"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("[windows-vc-runtime-missing]"), std::string::npos) << run.out;
}

// A CUDA wheel whose torch_cuda.dll imports a cuDNN DLL the install lost; and a DLL in torch\lib
// that is no image at all (a download cut short).
TEST_F(WindowsDoctor, AMissingCudaDllAndADamagedDllInTorchLib) {
  add_python_with_torch("2.5.1+cu124", "'12.4'");
  add_torch_dlls({"torch_cuda.dll"});
  auto run = doctor("");
  EXPECT_EQ(run.status, 1) << run.out;
  EXPECT_NE(run.out.find("[windows-torch-dll-missing]"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("cudnn64_9.dll, imported by C:\\Python312\\Lib\\site-packages\\torch\\lib\\torch_cuda.dll"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("pip install --force-reinstall --no-cache-dir torch==2.5.1 --index-url "
                         "https://download.pytorch.org/whl/cu124"),
            std::string::npos)
      << run.out;
  std::ofstream(site_packages() + "/torch/lib/c10.dll", std::ios::binary) << "<html>404 Not Found</html>";
  auto damaged = parse(doctor("--json"));
  ASSERT_TRUE(has_finding(damaged, "torch-library-damaged")) << damaged.at("findings").dump(1);
  EXPECT_EQ(damaged.at("facts").at("windows").at("torch_dlls")[0].at("unreadable")[0],
            "C:\\Python312\\Lib\\site-packages\\torch\\lib\\c10.dll: not a Windows executable or DLL (no MZ header)");
}

// The tutorials' readers: a Chinese name in the path of the Python, of torch and of its DLLs,
// read through the UTF-16 calls and written as UTF-8 in every report.
TEST_F(WindowsDoctor, PathsWithChineseCharactersAreReadAndWrittenAsUtf8) {
  const std::string name = "\u5f20\u4e09";  // 张三
  const std::string root = prefix() + "/drive_c/" + name + "/Python312";
  ASSERT_EQ(run_command("mkdir -p " + shell_quote(root + "/Lib/site-packages/torch/lib")).status, 0);
  std::ofstream(root + "/Lib/site-packages/torch/version.py") << "__version__ = '2.5.1+cpu'\ncuda = None\n";
  copy_fake("c10.dll", root + "/Lib/site-packages/torch/lib/c10.dll");
  copy_fake("empty_program.exe", root + "/python.exe");
  const std::string windows_root = "C:\\" + name + "\\Python312";
  ASSERT_EQ(wine("reg add 'HKCU\\Software\\Python\\PythonCore\\3.12\\InstallPath' /ve /d " + shell_quote(windows_root) +
                 " /f")
                .status,
            0);
  auto j = parse(doctor("--json"));
  ASSERT_EQ(j.at("facts").at("python_envs").size(), 1u) << j.at("facts").at("python_envs").dump(1);
  EXPECT_EQ(j.at("facts").at("python_envs")[0].at("prefix"), windows_root);
  const auto& check = j.at("facts").at("windows").at("torch_dlls").at(0);
  EXPECT_EQ(check.at("python_exe"), windows_root + "\\python.exe");
  ASSERT_EQ(check.at("missing").size(), 1u) << check.dump(1);
  EXPECT_EQ(check.at("missing")[0].at("needed_by"), windows_root + "\\Lib\\site-packages\\torch\\lib\\c10.dll");
  auto text = doctor("");
  EXPECT_NE(text.out.find("torch 2.5.1+cpu (CPU) in " + windows_root + "\\Lib\\site-packages"), std::string::npos)
      << text.out;
}

// A 32-bit python.exe (PE32, machine x86: written by the suite) before torch's x64 DLLs.
TEST_F(WindowsDoctor, A32BitPythonForA64BitTorchIsNamed) {
  add_python_with_torch("2.5.1+cpu", "None");
  add_torch_dlls({"c10.dll"});
  copy_fake("vcruntime140_1.dll", prefix() + "/drive_c/Python312/vcruntime140_1.dll");
  std::ofstream(prefix() + "/drive_c/Python312/python.exe", std::ios::binary)
      << build_pe({0x14c, false, false, {"python312.dll", "KERNEL32.dll"}, {}});
  auto j = parse(doctor("--json"));
  ASSERT_TRUE(has_finding(j, "windows-python-architecture-mismatch")) << j.at("findings").dump(1);
  EXPECT_EQ(j.at("facts").at("windows").at("torch_dlls")[0].at("python_machine"), "x86");
  EXPECT_EQ(j.at("verdict").at("torch")[0].at("reason"), "import torch fails: python.exe is x86, torch's DLLs x64");
  EXPECT_EQ(j.at("verdict").at("cpu_training_ok"), false);
}

// The issue's laptop: an NVIDIA GPU beside an integrated one, and Settings → Graphics set to
// "Power saving" for python.exe (DXGI's answers from the suite's dxgi.dll).
TEST_F(WindowsDoctor, PythonSetToThePowerSavingGpuOnALaptop) {
  add_adapter("0000", "pci\\ven_10de&dev_28a0&subsys_0b2c1028", "NVIDIA GeForce RTX 4060 Laptop GPU", "32.0.15.6094");
  add_adapter("0001", "pci\\ven_8086&dev_a7a0", "Intel(R) Iris(R) Xe Graphics", "31.0.101.4502");
  install_fake_dxgi("adapters=3\nadapter0.name=Intel(R) Iris(R) Xe Graphics\nadapter0.vendor=0x8086\nadapter0.device=0xa7a0\n"
                    "adapter0.memory_mib=128\nadapter1.name=NVIDIA GeForce RTX 4060 Laptop GPU\nadapter1.vendor=0x10de\n"
                    "adapter1.device=0x28a0\nadapter1.memory_mib=8188\nadapter2.name=Microsoft Basic Render Driver\n"
                    "adapter2.vendor=0x1414\nadapter2.device=0x8c\nadapter2.software=1\nhigh_performance=1\nminimum_power=0\n");
  const std::string key = "\"HKCU\\Software\\Microsoft\\DirectX\\UserGpuPreferences\"";
  wine("reg add " + key + " /v \"C:\\Python312\\python.exe\" /d \"GpuPreference=1;\" /f");
  wine("reg add " + key + " /v \"C:\\Games\\game.exe\" /d \"GpuPreference=2;\" /f");
  auto j = parse(doctor("--json --no-driver-probe", "dxgi=n"));
  const auto& w = j.at("facts").at("windows");
  ASSERT_EQ(w.at("dxgi_adapters").size(), 3u) << w.dump(1);
  EXPECT_EQ(w.at("dxgi_adapters")[1].at("name"), "NVIDIA GeForce RTX 4060 Laptop GPU");
  EXPECT_EQ(w.at("dxgi_adapters")[1].at("vendor_id"), "10de");
  EXPECT_EQ(w.at("dxgi_adapters")[1].at("dedicated_memory"), 8188ull << 20);
  EXPECT_EQ(w.at("dxgi_adapters")[2].at("software"), true);
  EXPECT_EQ(w.at("dxgi_high_performance"), w.at("dxgi_adapters")[1].at("luid"));
  EXPECT_EQ(w.at("python_gpu_preferences").size(), 1u) << "only Python's choices are read: " << w.dump(1);
  EXPECT_EQ(w.at("python_gpu_preferences").at("C:\\Python312\\python.exe"), "power-saving");
  ASSERT_TRUE(has_finding(j, "windows-python-on-power-saving-gpu")) << j.at("findings").dump(1);
  auto text = doctor("--no-driver-probe", "dxgi=n");
  EXPECT_NE(text.out.find("DXGI: NVIDIA GeForce RTX 4060 Laptop GPU [10de:28a0], Windows' high-performance GPU"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("Windows' power-saving GPU: Intel(R) Iris(R) Xe Graphics"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Settings → System → Display → Graphics: C:\\Python312\\python.exe → Options → High performance "
                          "(NVIDIA GeForce RTX 4060 Laptop GPU) → Save"),
            std::string::npos)
      << text.out;
  // Set to High performance: nothing to say.
  wine("reg add " + key + " /v \"C:\\Python312\\python.exe\" /d \"GpuPreference=2;\" /f");
  auto fixed = parse(doctor("--json --no-driver-probe", "dxgi=n"));
  EXPECT_FALSE(has_finding(fixed, "windows-python-on-power-saving-gpu"));
  // A program name with a terminal escape in it (any program may write HKCU): escaped in the fix
  // line as in the evidence, never sent to the terminal.
  wine("reg add " + key + " /v \"C:\\Python312\\python.exe\" /d \"GpuPreference=2;\" /f");
  wine("reg add " + key + " /v " + shell_quote("C:\\Evil\x1b[2J\\python.exe") + " /d \"GpuPreference=1;\" /f");
  auto hostile = doctor("--no-driver-probe", "dxgi=n");
  EXPECT_EQ(hostile.out.find('\x1b'), std::string::npos) << "an escape reached the terminal";
  EXPECT_NE(hostile.out.find("Graphics: C:\\Evil\\x1b[2J\\python.exe → Options"), std::string::npos) << hostile.out;
  auto markdown = doctor("--markdown --no-driver-probe", "dxgi=n");
  EXPECT_EQ(markdown.out.find('\x1b'), std::string::npos) << "an escape reached the Markdown report";
  EXPECT_NE(markdown.out.find("or in PowerShell: `Set-ItemProperty -Path"), std::string::npos) << markdown.out;
  wine("reg delete " + key + " /v " + shell_quote("C:\\Evil\x1b[2J\\python.exe") + " /f");
  // No DXGI to ask: said as a fact, and the registry's adapters still decide.
  wine("reg add " + key + " /v \"C:\\Python312\\python.exe\" /d \"GpuPreference=1;\" /f");
  auto no_dxgi = parse(doctor("--json --no-driver-probe"));
  EXPECT_EQ(no_dxgi.at("facts").at("windows").at("dxgi_error"), "dxgi.dll could not be loaded");
  EXPECT_TRUE(has_finding(no_dxgi, "windows-python-on-power-saving-gpu"));
}

// NVML on Windows (the Linux fake's source built as nvml.dll): the driver model, Windows' watchdog
// on a WDDM GPU, and NVML's device rules in Windows' words.
TEST_F(WindowsDoctor, NvmlsDriverModelTheWatchdogAndTheComputeMode) {
  add_adapter("0000", "pci\\ven_10de&dev_2684&subsys_167c10de", "NVIDIA GeForce RTX 4090", "32.0.15.6094");
  install_fake_nvcuda(system32(), "devices=1\ndev0.name=NVIDIA GeForce RTX 4090\n");
  copy_fake("nvml.dll", system32() + "/nvml.dll");
  std::ofstream(system32() + "/fake_driver.conf") << "devices=1\ndev0.name=NVIDIA GeForce RTX 4090\ndev0.driver_model=0\n"
                                                      "dev0.compute_mode=2\nnvml.driver=560.94\n";
  auto j = parse(doctor("--json"));
  const auto& nvml = j.at("facts").at("nvml");
  EXPECT_EQ(nvml.at("status"), "ok") << nvml.dump(1);
  ASSERT_EQ(nvml.at("devices").size(), 1u);
  EXPECT_EQ(nvml.at("devices")[0].at("driver_model"), 0);
  EXPECT_TRUE(has_finding(j, "windows-gpu-watchdog")) << j.at("findings").dump(1);
  ASSERT_TRUE(has_finding(j, "compute-mode-prohibited"));
  auto text = doctor("");
  EXPECT_NE(text.out.find("GPU 0 NVIDIA GeForce RTX 4090: driver model WDDM (a display device)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("GPU watchdog (TDR): 2 s (Windows' default)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("TdrDelay is not set: Windows' default of 2 s applies"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("nvidia-smi -c DEFAULT (in a terminal opened as administrator)"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("sudo"), std::string::npos) << "no Linux commands on Windows:\n" << text.out;
  // A longer TdrDelay, or a GPU in TCC: nothing to say about the watchdog.
  wine("reg add \"HKLM\\SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers\" /v TdrDelay /t REG_DWORD /d 60 /f");
  auto longer = parse(doctor("--json"));
  EXPECT_EQ(longer.at("facts").at("windows").at("tdr_delay"), 60);
  EXPECT_FALSE(has_finding(longer, "windows-gpu-watchdog"));
  wine("reg delete \"HKLM\\SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers\" /v TdrDelay /f");
  std::ofstream(system32() + "/fake_driver.conf") << "devices=1\ndev0.name=NVIDIA RTX A6000\ndev0.driver_model=1\n";
  EXPECT_FALSE(has_finding(parse(doctor("--json")), "windows-gpu-watchdog"));
  // An nvml.dll that crashes in nvmlInit: its child ends with the exception, the doctor goes on.
  std::ofstream(system32() + "/fake_driver.conf") << "nvml.behaviour=crash\n";
  auto crashed = parse(doctor("--json"));
  EXPECT_EQ(crashed.at("facts").at("nvml").at("status"), "crashed") << crashed.at("facts").at("nvml").dump(1);
  EXPECT_EQ(crashed.at("facts").at("driver_api").at("status"), "ok");
  ASSERT_TRUE(has_finding(crashed, "driver-probe-crash")) << crashed.at("findings").dump(1);
}

// Issue 59 item 7: a Windows machine replays on any build. `dlready capture` under wine records
// what the Windows source asked and what Windows answered (the registry, files, the DLLs' headers,
// DXGI, the driver's children); the Linux dlready replays the folder with `doctor --root` and
// reports exactly what the Windows build reported on the machine (the capture keeps that report,
// doctor.json), the report's root aside (a replay names its folder).
struct CaptureReplay {
  nlohmann::json live, replayed;
  int status = -1;
  std::string capture_json, text;
};

CaptureReplay capture_and_replay(const std::string& wine_env, const std::string& dll_overrides) {
  CaptureReplay r;
  const std::string dir = std::string(DLREADY_TEST_BINARY_DIR) + "/wine-capture";
  remove_tree(dir);
  std::string windows_dir = "Z:" + dir;
  std::replace(windows_dir.begin(), windows_dir.end(), '/', '\\');
  // Another Windows user (USER=...) takes a wine server of its own: the running one is stopped
  // before and after.
  const std::string stop_server = "WINEPREFIX=" + shell_quote(std::string(DLREADY_TEST_BINARY_DIR) + "/wine-prefix") +
                                  " /usr/lib/wine/wineserver -k 2>/dev/null; WINEPREFIX=" +
                                  shell_quote(std::string(DLREADY_TEST_BINARY_DIR) + "/wine-prefix") +
                                  " /usr/lib/wine/wineserver -w 2>/dev/null";
  if (!wine_env.empty()) run_command(stop_server);
  auto made = run_command(wine_env + " LANG=C.UTF-8 WINEPREFIX=" + shell_quote(std::string(DLREADY_TEST_BINARY_DIR) + "/wine-prefix") +
                          " WINEDEBUG=-all WINEDLLOVERRIDES=" + shell_quote(dll_overrides) + " " + wine_program() + " " +
                          shell_quote(DLREADY_WINDOWS_EXE) + " capture " + shell_quote(windows_dir) + " 2>&1");
  if (!wine_env.empty()) run_command(stop_server);
  EXPECT_EQ(made.status, 0) << made.out;
  EXPECT_NE(made.out.find("replay it: copy the folder to a Linux or macOS machine"), std::string::npos) << made.out;
  r.capture_json = read_text(dir + "/.dlready-capture/capture.json");
  r.live = nlohmann::json::parse(read_text(dir + "/.dlready-capture/doctor.json"), nullptr, false);
  auto replay = run_command(shell_quote(DLREADY_BINARY) + " doctor --json --root " + shell_quote(dir));
  r.status = replay.status;
  r.replayed = nlohmann::json::parse(replay.out, nullptr, false);
  r.text = run_command(shell_quote(DLREADY_BINARY) + " doctor --no-color --root " + shell_quote(dir)).out;
  EXPECT_FALSE(r.live.is_discarded() || r.replayed.is_discarded()) << replay.out.substr(0, 400);
  if (r.live.is_discarded() || r.replayed.is_discarded()) return r;
  EXPECT_EQ(r.replayed.at("facts").at("root"), dir);
  for (auto* j : {&r.live, &r.replayed}) j->at("facts").erase("root");
  return r;
}

TEST_F(WindowsDoctor, ACaptureReplaysOnLinuxAsTheWindowsBuildReadIt) {
  add_adapter("0000", "pci\\ven_10de&dev_28a0&subsys_0b2c1028", "NVIDIA GeForce RTX 4060 Laptop GPU", "32.0.15.6094");
  add_adapter("0001", "pci\\ven_8086&dev_a7a0", "Intel(R) Iris(R) Xe Graphics", "31.0.101.4502");
  install_fake_nvcuda(system32(), "devices=1\ndev0.name=NVIDIA GeForce RTX 4060 Laptop GPU\ndev0.cc_major=8\n"
                                  "dev0.cc_minor=9\ndriver_version=12060\n");
  copy_fake("nvml.dll", system32() + "/nvml.dll");
  std::ofstream(system32() + "/fake_driver.conf") << "devices=1\ndev0.name=NVIDIA GeForce RTX 4060 Laptop GPU\n"
                                                      "dev0.driver_model=0\nnvml.driver=560.94\n";
  install_fake_dxgi("adapters=2\nadapter0.name=Intel(R) Iris(R) Xe Graphics\nadapter0.vendor=0x8086\nadapter0.device=0xa7a0\n"
                    "adapter1.name=NVIDIA GeForce RTX 4060 Laptop GPU\nadapter1.vendor=0x10de\nadapter1.device=0x28a0\n"
                    "high_performance=1\nminimum_power=0\n");
  wine("reg add \"HKCU\\Software\\Microsoft\\DirectX\\UserGpuPreferences\" /v \"C:\\Python312\\python.exe\" /d "
       "\"GpuPreference=1;\" /f");
  wine("reg add \"HKLM\\SYSTEM\\CurrentControlSet\\Control\\FileSystem\" /v LongPathsEnabled /t REG_DWORD /d 0 /f");
  add_python_with_torch("2.2.2+cu121", "'12.1'");
  add_torch_dlls({"c10.dll", "torch_cuda.dll"});
  ASSERT_EQ(run_command("mkdir -p '" + site_packages() + "/numpy-2.1.3.dist-info'").status, 0);
  auto r = capture_and_replay("", "dxgi=n");
  wine("reg delete \"HKCU\\Software\\Microsoft\\DirectX\\UserGpuPreferences\" /f");
  wine("reg add \"HKLM\\SYSTEM\\CurrentControlSet\\Control\\FileSystem\" /v LongPathsEnabled /t REG_DWORD /d 1 /f");
  ASSERT_FALSE(r.live.is_discarded() || r.replayed.is_discarded());
  EXPECT_EQ(r.replayed, r.live) << nlohmann::json::diff(r.live, r.replayed).dump(1);
  EXPECT_EQ(r.status, 1);
  for (const char* id : {"windows-vc-runtime-missing", "windows-torch-dll-missing", "torch-needs-numpy1",
                         "windows-python-on-power-saving-gpu", "windows-long-paths-disabled", "windows-gpu-watchdog"})
    EXPECT_TRUE(has_finding(r.replayed, id)) << id << ": " << r.replayed.at("findings").dump(1);
  EXPECT_EQ(r.replayed.at("facts").at("driver_api").at("status"), "ok") << "the driver's answer replays";
  EXPECT_EQ(r.replayed.at("facts").at("nvml").at("status"), "ok");
  EXPECT_NE(r.text.find("dlready doctor  (root " + std::string(DLREADY_TEST_BINARY_DIR) + "/wine-capture)"),
            std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("Windows 10 Pro 22H2"), std::string::npos) << r.text;
}

// A redacted capture (the default) hides the user everywhere — the profile's paths, the files read
// from it — the same way in the questions and the answers, so it still replays.
TEST_F(WindowsDoctor, ARedactedCaptureHidesTheUserAndStillReplays) {
  const std::string venv = prefix() + "/drive_c/users/alice/venv";
  ASSERT_EQ(run_command("mkdir -p '" + venv + "/Lib/site-packages/torch/lib' '" + venv +
                        "/Lib/site-packages/torch-2.5.1+cpu.dist-info'").status, 0);
  std::ofstream(venv + "/Lib/site-packages/torch/version.py") << "__version__ = '2.5.1+cpu'\ncuda = None\n";
  std::ofstream(venv + "/pyvenv.cfg") << "home = C:\\users\\alice\\AppData\\Local\\Programs\\Python\\Python312\n"
                                         "version = 3.12.7\n";
  copy_fake("c10.dll", venv + "/Lib/site-packages/torch/lib/c10.dll");
  auto r = capture_and_replay("USER=alice", "dxgi=");
  remove_tree(venv);
  ASSERT_FALSE(r.live.is_discarded() || r.replayed.is_discarded());
  EXPECT_EQ(r.capture_json.find("alice"), std::string::npos) << "the user's name is in the capture";
  EXPECT_EQ(r.replayed, r.live) << nlohmann::json::diff(r.live, r.replayed).dump(1);
  ASSERT_EQ(r.replayed.at("facts").at("python_envs").size(), 1u) << r.replayed.at("facts").at("python_envs").dump(1);
  EXPECT_EQ(r.replayed.at("facts").at("python_envs")[0].at("prefix"), "C:\\users\\<user-1>\\venv");
  EXPECT_EQ(r.replayed.at("facts").at("python_envs")[0].at("python_full_version"), "3.12.7");
  EXPECT_TRUE(has_finding(r.replayed, "windows-vc-runtime-missing")) << r.replayed.at("findings").dump(1);
}

// The PE reader on what a real compiler writes (mingw-w64's DLLs and program), no wine needed.
TEST(PeImageOfMingwOutput, ImportsAndMachineOfTheSuitesDlls) {
  auto read = [](const std::string& name) {
    std::string bytes = read_text(std::string(DLREADY_WINDOWS_FAKES) + "/" + name);
    return parse_pe(bytes_reader(bytes));
  };
  auto c10 = read("c10.dll");
  ASSERT_TRUE(c10.image) << c10.error;
  EXPECT_EQ(pe_machine_name(c10.image->machine), "x64");
  EXPECT_TRUE(c10.image->is_dll);
  EXPECT_EQ(c10.image->imports, (std::vector<std::string>{"KERNEL32.dll", "msvcrt.dll", "vcruntime140_1.dll"}));
  auto exe = read("empty_program.exe");
  ASSERT_TRUE(exe.image) << exe.error;
  EXPECT_FALSE(exe.image->is_dll);
  auto doctor_exe = parse_pe(bytes_reader(read_text(DLREADY_WINDOWS_EXE)));
  ASSERT_TRUE(doctor_exe.image) << doctor_exe.error;
  for (const auto& dll : doctor_exe.image->imports)
    EXPECT_FALSE(starts_with(to_lower(dll), "libstdc++") || starts_with(to_lower(dll), "libgcc") ||
                 starts_with(to_lower(dll), "libwinpthread"))
        << "dlready.exe is static: it imports " << dll;
}

// snapshot, diff and export on Windows: the same documents as on Linux, written atomically; a
// Windows snapshot diffs against another and against a Linux one.
TEST_F(WindowsDoctor, SnapshotDiffAndExportAsOnLinux) {
  add_adapter("0000", "pci\\ven_10de&dev_2684&subsys_167c10de", "NVIDIA GeForce RTX 4090", "32.0.15.6094");
  install_fake_nvcuda(system32(), "devices=1\ndev0.name=NVIDIA GeForce RTX 4090\n");
  add_python_with_torch("2.5.1+cu124", "'12.4'");
  const std::string exe = shell_quote(DLREADY_WINDOWS_EXE);
  remove_tree(prefix() + "/drive_c/before.json");
  remove_tree(prefix() + "/drive_c/after.json");
  auto snap = wine(exe + " snapshot --out 'C:\\before.json'", true);
  ASSERT_EQ(snap.status, 0) << snap.out;
  EXPECT_NE(snap.out.find("dlready snapshot: wrote C:\\before.json"), std::string::npos) << snap.out;
  auto before = nlohmann::json::parse(read_text(prefix() + "/drive_c/before.json"), nullptr, false);
  ASSERT_FALSE(before.is_discarded());
  EXPECT_EQ(before.at("schema"), "dlready.snapshot/1");
  EXPECT_EQ(before.at("facts").at("os").at("id"), "windows");
  EXPECT_FALSE(before.at("snapshot").at("created").get<std::string>().empty());
  // The same machine: no difference; then another torch.
  ASSERT_EQ(wine(exe + " snapshot --out 'C:\\after.json'").status, 0);
  auto same = wine(exe + " diff 'C:\\before.json' 'C:\\after.json'");
  EXPECT_EQ(same.status, 0) << same.out;
  EXPECT_NE(same.out.find("no differences in what matters to a training job"), std::string::npos) << same.out;
  add_python_with_torch("2.9.0+cu130", "'13.0'");
  ASSERT_EQ(wine(exe + " snapshot --out 'C:\\after.json'").status, 0);
  auto changed = wine(exe + " diff 'C:\\before.json' 'C:\\after.json'");
  EXPECT_EQ(changed.status, 1) << changed.out;
  EXPECT_NE(changed.out.find("2.9.0+cu130"), std::string::npos) << changed.out;
  auto as_json = parse(wine(exe + " diff --json 'C:\\before.json' 'C:\\after.json'"));
  EXPECT_EQ(as_json.at("schema"), "dlready.diff/1");
  // Against a Linux machine's report (a golden of the Linux suite): the system differs.
  auto linux_side = wine(exe + " diff " + shell_quote(std::string("Z:") + DLREADY_SOURCE_DIR + "/tests/golden/healthy-gpu.json") +
                         " 'C:\\before.json'");
  EXPECT_EQ(linux_side.status, 1) << linux_side.out;
  EXPECT_NE(linux_side.out.find("system — "), std::string::npos) << linux_side.out;
  auto lock = wine(exe + " export 'C:\\after.json'");
  EXPECT_EQ(lock.status, 0) << lock.out;
  EXPECT_NE(lock.out.find("torch==2.9.0"), std::string::npos) << lock.out;
  // What is not a snapshot: one line, exit 2.
  auto nothing = wine(exe + " diff 'C:\\missing.json' 'C:\\after.json'", true);
  EXPECT_EQ(nothing.status, 2) << nothing.out;
  EXPECT_NE(nothing.out.find("dlready diff: C:\\missing.json: cannot open"), std::string::npos) << nothing.out;
  auto device = wine(exe + " export NUL", true);
  EXPECT_EQ(device.status, 2) << device.out;
  EXPECT_NE(device.out.find("a device or pipe, not a snapshot"), std::string::npos) << device.out;
}

// setup --dry-run: the build for this machine (the driver's answer: an RTX 4090, driver 560.94;
// the py launcher's Python 3.12) from Windows' floors, the commands in PowerShell's form.
TEST_F(WindowsDoctor, SetupDryRunPlansTheWindowsWheelInPowerShell) {
  const std::string exe = shell_quote(DLREADY_WINDOWS_EXE);
  auto no_python = wine(exe + " setup --dry-run", true);
  EXPECT_EQ(no_python.status, 2) << no_python.out;
  EXPECT_NE(no_python.out.find("no Python found (py launcher, conda, venvs): give its version with --python X.Y"),
            std::string::npos)
      << no_python.out;
  add_adapter("0000", "pci\\ven_10de&dev_2684&subsys_167c10de", "NVIDIA GeForce RTX 4090", "32.0.15.6094");
  install_fake_nvcuda(system32(), "devices=1\ndev0.name=NVIDIA GeForce RTX 4090\ndev0.cc_major=8\ndev0.cc_minor=9\n");
  add_python_with_torch("2.5.1+cpu", "None");
  auto plan = wine(exe + " setup --dry-run --with torchvision");
  EXPECT_EQ(plan.status, 0) << plan.out;
  EXPECT_NE(plan.out.find("seen: cuda:0 NVIDIA GeForce RTX 4090: compute capability 8.9 (driver)"), std::string::npos)
      << plan.out;
  EXPECT_NE(plan.out.find("win_amd64) from https://download.pytorch.org/whl/cu12"), std::string::npos) << plan.out;
  EXPECT_NE(plan.out.find("commands (PowerShell):\n    py -3.12 -m venv '.venv'\n    & '.venv\\Scripts\\python.exe' -m pip "
                          "install 'torch=="),
            std::string::npos)
      << plan.out;
  EXPECT_NE(plan.out.find("'torchvision' --index-url 'https://download.pytorch.org/whl/cu12"), std::string::npos) << plan.out;
  // Issue 58 item 3: the flag checks of every platform's setup (install_plan.hpp's one function):
  // what Linux quotes, PowerShell quotes too; what no platform accepts is refused alike.
  auto quoted = wine(exe + " setup --dry-run --with 'torchvision;id' --with '$(id)'");
  EXPECT_EQ(quoted.status, 0) << quoted.out;
  EXPECT_NE(quoted.out.find(" 'torchvision;id' '$(id)' --index-url"), std::string::npos) << quoted.out;
  auto spaced = wine(exe + " setup --dry-run --with 'torch vision'", true);
  EXPECT_EQ(spaced.status, 2) << spaced.out;
  EXPECT_NE(spaced.out.find("dlready setup: --with 'torch vision' has a space, a quote or a control character"),
            std::string::npos) << spaced.out;
  auto j = parse(wine(exe + " setup --json"));
  EXPECT_EQ(j.at("schema"), "dlready.setup-plan/1");
  EXPECT_EQ(j.at("machine").at("platform"), "win-amd64");
  EXPECT_EQ(j.at("machine").at("driver"), "560.94");
  EXPECT_EQ(j.at("machine").at("python"), "3.12");
  EXPECT_EQ(j.at("machine").at("gpus"), nlohmann::json::array({"sm_89"}));
  // Windows' floor, not Linux's: 527.41 runs CUDA 12 on Linux's numbers (525.60.13) but not on Windows' (528.33).
  auto old_driver = parse(wine(exe + " setup --json --gpu sm_89 --driver 527.41 --python 3.12"));
  EXPECT_EQ(old_driver.at("variant"), "cu118") << old_driver.dump(1);
  auto install = wine(exe + " setup", true);
  EXPECT_EQ(install.status, 2) << install.out;
  EXPECT_NE(install.out.find("add --dry-run"), std::string::npos) << install.out;
}

TEST_F(WindowsDoctor, TheLibTorchCommandsSayWhereTheyRun) {
  auto run = wine(shell_quote(DLREADY_WINDOWS_EXE) + " train --epochs 1", true);
  EXPECT_EQ(run.status, 3);
  EXPECT_NE(run.out.find("dlready train: runs on Linux only (its LibTorch is built for Linux); on Windows run it in WSL2"),
            std::string::npos)
      << run.out;
  auto catalogue = wine(shell_quote(DLREADY_WINDOWS_EXE) + " doctor --list-findings");
  EXPECT_EQ(catalogue.status, 0);
  EXPECT_EQ(catalogue.out, read_text(std::string(DLREADY_SOURCE_DIR) + "/docs/findings.md"));
}

}  // namespace
}  // namespace dlready::test
