// What real machines from public bug reports show (issue 59): each capability through the `dlready`
// binary on a fixture built the way such a machine is (dist-info folders pip writes, conda-meta JSON
// conda writes, ELF files with real symbol tables).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/text.hpp"
#include "diagnose/rules.hpp"
#include "fixture.hpp"

namespace dlready::test {
namespace {

const char* const kSite = "/home/alice/venv/lib/python3.11/site-packages";

// The doctor's JSON report of the fixture, as the user's shell would run it.
nlohmann::json doctor_json(const Fixture& f, const std::string& flags = "") {
  auto run = run_command(f.env_command() + " " + DLREADY_BINARY + " doctor --no-cache --load-root-drivers --root " +
                         f.root + " " + flags + " --json 2>/dev/null");
  auto j = nlohmann::json::parse(run.out, nullptr, false);
  EXPECT_TRUE(j.is_object()) << run.out.substr(0, 800);
  return j.is_object() ? j : nlohmann::json::object();
}

const nlohmann::json* finding(const nlohmann::json& report, const std::string& id) {
  if (!report.contains("findings")) return nullptr;
  for (const auto& x : report.at("findings"))
    if (x.value("id", "") == id) return &x;
  return nullptr;
}

std::string lines_of(const nlohmann::json& x, const char* key) {
  std::string out;
  for (const auto& l : x.at(key)) out += l.get<std::string>() + "\n";
  return out;
}

// Item 3: NumPy 2 beside a torch built for NumPy 1 is named on every platform, not only on a
// Jetson (pytorch#107302 and its duplicates); a torch built for NumPy 2 is left alone.
TEST(RealFailures, NumPy2BesideATorchBuiltForNumPy1) {
  Fixture f;
  healthy_gpu_machine(f);
  add_torch_venv(f, "/home/alice/venv", TorchSpec{"2.2.2+cu121", "12.1", {}, {}});
  f.mkdir(std::string(kSite) + "/numpy-2.0.1.dist-info");
  f.write(std::string(kSite) + "/numpy-2.0.1.dist-info/METADATA", "Metadata-Version: 2.1\nName: numpy\nVersion: 2.0.1\n");
  auto report = doctor_json(f);
  const auto* x = finding(report, "torch-needs-numpy1");
  ASSERT_NE(x, nullptr) << report.dump(1).substr(0, 1500);
  EXPECT_EQ(x->value("severity", ""), "error");
  EXPECT_NE(lines_of(*x, "evidence").find("numpy 2.0.1"), std::string::npos) << x->dump(1);
  EXPECT_NE(lines_of(*x, "fix").find("/home/alice/venv/bin/python -m pip install \"numpy<2\""), std::string::npos) << x->dump(1);
  // torch 2.3 and later are built against NumPy 2.
  f.remove("/home/alice/venv");
  add_torch_venv(f, "/home/alice/venv", TorchSpec{"2.3.1+cu121", "12.1", {}, {}});
  f.mkdir(std::string(kSite) + "/numpy-2.0.1.dist-info");
  EXPECT_EQ(finding(doctor_json(f), "torch-needs-numpy1"), nullptr);
}

void cc(const std::string& args) { ASSERT_EQ(std::system(("cc " + args + " 2>&1").c_str()), 0) << args; }

// A PyTorch 2.4 CUDA 12 venv whose libraries are real ELF files compiled here: torch/lib's
// libtorch_cuda.so needs the cuSPARSE wheel's libcusparse.so.12 (RUNPATH, as the wheels ship it),
// which was linked against libnvJitLink.so.12 of 12.4 and binds __nvJitLinkAddData_12_4 with the
// version libnvJitLink.so.12. CUDA 12.1's copy under /usr/local defines only the 12_1 symbol.
struct NvJitLinkMachine {
  Fixture f;
  std::string sp = kSite;
  NvJitLinkMachine() {
    healthy_gpu_machine(f);
    TorchSpec spec{"2.4.0+cu124", "12.4", {}, {}};
    spec.pins = {{"nvidia-cusparse-cu12", "12.3.1.170"}, {"nvidia-nvjitlink-cu12", "12.4.127"}};
    spec.installed = spec.pins;
    add_torch_venv(f, "/home/alice/venv", spec);
    const std::string r = f.root, s = r + sp;
    f.write("/src/jit_new.map", "libnvJitLink.so.12 { global: __nvJitLinkAddData_12_1; __nvJitLinkAddData_12_4; local: *; };\n");
    f.write("/src/jit_old.map", "libnvJitLink.so.12 { global: __nvJitLinkAddData_12_1; local: *; };\n");
    f.write("/src/jit_new.c", "int __nvJitLinkAddData_12_1(void) { return 1; }\nint __nvJitLinkAddData_12_4(void) { return 4; }\n");
    f.write("/src/jit_old.c", "int __nvJitLinkAddData_12_1(void) { return 1; }\n");
    f.write("/src/cusparse.c", "int __nvJitLinkAddData_12_4(void);\nint cusparseCreate(void) { return __nvJitLinkAddData_12_4(); }\n");
    f.write("/src/torch_cuda.c", "int cusparseCreate(void);\nint torch_cuda_init(void) { return cusparseCreate(); }\n");
    f.write("/src/main.c", "int torch_cuda_init(void);\nint main(void) { return torch_cuda_init() == 4 ? 0 : 3; }\n");
    for (const char* d : {"/nvidia/nvjitlink/lib", "/nvidia/cusparse/lib", "/torch/lib"}) f.mkdir(sp + d);
    f.mkdir("/usr/local/cuda-12.1/lib64");
    f.mkdir("/bin");
    jitlink(s + "/nvidia/nvjitlink/lib/libnvJitLink.so.12", "new");
    jitlink(r + "/usr/local/cuda-12.1/lib64/libnvJitLink.so.12.1.105", "old");
    f.link("/usr/local/cuda-12.1/lib64/libnvJitLink.so.12", "libnvJitLink.so.12.1.105");
    cc("-shared -fPIC -Wl,-soname,libcusparse.so.12 -o " + s + "/nvidia/cusparse/lib/libcusparse.so.12 " + r +
       "/src/cusparse.c -L" + s + "/nvidia/nvjitlink/lib -l:libnvJitLink.so.12 -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../../nvjitlink/lib'");
    f.remove(sp + "/torch/lib/libtorch_cuda.so");
    cc("-shared -fPIC -o " + s + "/torch/lib/libtorch_cuda.so " + r + "/src/torch_cuda.c -L" + s +
       "/nvidia/cusparse/lib -l:libcusparse.so.12 -Wl,-rpath-link," + s +
       "/nvidia/nvjitlink/lib -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../../nvidia/cusparse/lib'");
    cc("-o " + r + "/bin/app " + r + "/src/main.c -L" + s + "/torch/lib -ltorch_cuda -Wl,-rpath-link," + s +
       "/nvidia/cusparse/lib:" + s + "/nvidia/nvjitlink/lib -Wl,--enable-new-dtags,-rpath," + s + "/torch/lib");
  }
  void jitlink(const std::string& out, const std::string& which) {
    cc("-shared -fPIC -Wl,-soname,libnvJitLink.so.12 -Wl,--version-script=" + f.root + "/src/jit_" + which + ".map -o " +
       out + " " + f.root + "/src/jit_" + which + ".c");
  }
};

// Item 1: the loader picks CUDA 12.1's libnvJitLink.so.12 through LD_LIBRARY_PATH; the wheel's
// cuSPARSE needs a symbol only 12.4's defines. The real loader (binding at load, as Python's
// RTLD_NOW does) stops with the line the doctor now predicts, and the doctor says import torch
// fails, with both copies' versions and the fix.
TEST(RealFailures, AnOlderLibraryUnderTheSameNameLacksASymbolTheWheelNeeds) {
  NvJitLinkMachine m;
  Fixture& f = m.f;
  auto real = run_command("env LD_BIND_NOW=1 LD_LIBRARY_PATH=" + f.root + "/usr/local/cuda-12.1/lib64 " + f.root + "/bin/app 2>&1");
  EXPECT_NE(real.out.find("undefined symbol: __nvJitLinkAddData_12_4, version libnvJitLink.so.12"), std::string::npos)
      << real.out;
  EXPECT_EQ(run_command("env -u LD_LIBRARY_PATH LD_BIND_NOW=1 " + f.root + "/bin/app 2>&1").status, 0);

  f.env["LD_LIBRARY_PATH"] = "/usr/local/cuda-12.1/lib64";
  auto report = doctor_json(f);
  const auto* x = finding(report, "library-symbol-missing");
  ASSERT_NE(x, nullptr) << report.dump(1).substr(0, 3000);
  EXPECT_EQ(x->value("severity", ""), "error");
  std::string evidence = lines_of(*x, "evidence"), fix = lines_of(*x, "fix");
  EXPECT_NE(evidence.find(m.sp + "/nvidia/cusparse/lib/libcusparse.so.12: undefined symbol: __nvJitLinkAddData_12_4, "
                          "version libnvJitLink.so.12"), std::string::npos) << evidence;
  EXPECT_NE(evidence.find("the loader picks /usr/local/cuda-12.1/lib64/libnvJitLink.so.12 (LD_LIBRARY_PATH): 12.1.105"),
            std::string::npos) << evidence;
  EXPECT_NE(evidence.find("nvidia-cusparse-cu12 12.3.1.170"), std::string::npos) << evidence;
  EXPECT_NE(fix.find("drop /usr/local/cuda-12.1/lib64 from LD_LIBRARY_PATH: unset LD_LIBRARY_PATH"), std::string::npos) << fix;
  EXPECT_NE(fix.find("pip install --force-reinstall --no-deps nvidia-cusparse-cu12==12.3.1.170 nvidia-nvjitlink-cu12==12.4.127"),
            std::string::npos) << fix;
  EXPECT_EQ(report.at("verdict").value("cuda_usable", true), false) << report.at("verdict").dump();
  // import torch fails: not CPU training either, and the shadowed-copy warning is not said twice.
  EXPECT_EQ(report.at("verdict").value("cpu_training_ok", true), false) << report.at("verdict").dump();
  EXPECT_EQ(finding(report, "cuda-lib-shadowed"), nullptr);
  // Without the variable the wheel's own copy is loaded: nothing to say.
  f.env.erase("LD_LIBRARY_PATH");
  EXPECT_EQ(finding(doctor_json(f), "library-symbol-missing"), nullptr);
}

// A capture of that machine keeps the symbol tables' pages the check read, so the finding replays
// from the capture on any machine (what a user sends instead of their machine).
TEST(RealFailures, TheSymbolCheckReplaysFromACapture) {
  NvJitLinkMachine m;
  Fixture& f = m.f;
  f.env["LD_LIBRARY_PATH"] = "/usr/local/cuda-12.1/lib64";
  Fixture out;
  auto made = run_command(f.env_command() + " " + DLREADY_BINARY + " capture --no-redact --load-root-drivers --root " + f.root +
                          " " + out.root + "/m 2>&1");
  ASSERT_EQ(made.status, 0) << made.out;
  auto replay = run_command(std::string("env -i PATH=/usr/bin:/bin HOME=/root ") + DLREADY_BINARY + " doctor --no-cache --root " +
                            out.root + "/m --json 2>/dev/null");
  auto j = nlohmann::json::parse(replay.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << replay.out.substr(0, 500);
  const auto* x = finding(j, "library-symbol-missing");
  ASSERT_NE(x, nullptr) << j.at("findings").dump(1);
  EXPECT_NE(lines_of(*x, "evidence").find("undefined symbol: __nvJitLinkAddData_12_4"), std::string::npos) << x->dump(1);
}

// The same symbol missing from a stale nvidia-nvjitlink wheel (pip upgraded cuSPARSE, not it):
// the wheel's own copy is the one picked, so the fix is the pinned versions.
TEST(RealFailures, AStaleNvidiaWheelLacksASymbolItsNeighbourNeeds) {
  NvJitLinkMachine m;
  Fixture& f = m.f;
  m.jitlink(f.root + m.sp + "/nvidia/nvjitlink/lib/libnvJitLink.so.12", "old");
  f.remove(m.sp + "/nvidia_nvjitlink_cu12-12.4.127.dist-info");
  f.write(m.sp + "/nvidia_nvjitlink_cu12-12.1.105.dist-info/METADATA", "Name: nvidia-nvjitlink-cu12\nVersion: 12.1.105\n");
  auto report = doctor_json(f);
  const auto* x = finding(report, "library-symbol-missing");
  ASSERT_NE(x, nullptr) << report.dump(1).substr(0, 3000);
  std::string evidence = lines_of(*x, "evidence"), fix = lines_of(*x, "fix");
  EXPECT_NE(evidence.find("nvidia-nvjitlink-cu12 12.1.105, which lacks it"), std::string::npos) << evidence;
  EXPECT_NE(fix.find("nvidia-nvjitlink-cu12==12.4.127"), std::string::npos) << fix;
  EXPECT_EQ(fix.find("LD_LIBRARY_PATH"), std::string::npos) << fix;
}

// Item 2: a conda environment whose packages chose the CPU build (cpuonly, pytorch-mutex's cpu
// build, pulled in by another package): named from conda-meta, fixed in conda's words.
TEST(RealFailures, CondaCpuOnlyIsNamedWithThePackageThatPulledItIn) {
  Fixture f;
  healthy_gpu_machine(f);
  f.remove("/home/alice/venv");
  f.env.erase("VIRTUAL_ENV");
  const std::string env = "/home/alice/miniconda3/envs/ml";
  f.env["CONDA_PREFIX"] = env;
  f.write(env + "/bin/python3.10", "", 0755);
  add_torch_to_site_packages(f, env + "/lib/python3.10/site-packages", TorchSpec{"2.1.0", "", {}, {}});
  auto record = [&](const std::string& file, const std::string& channel, const std::string& depends) {
    // As conda writes them: sorted keys, the file list after depends.
    f.write(env + "/conda-meta/" + file,
            "{\n  \"build\": \"x\",\n  \"build_number\": 0,\n  \"channel\": \"" + channel + "\",\n  \"constrains\": [],\n"
            "  \"depends\": [" + depends + "],\n  \"files\": [\"lib/python3.10/site-packages/x.py\"]\n}\n");
  };
  record("python-3.10.13-h955ad1f_0.json", "https://repo.anaconda.com/pkgs/main/linux-64", "\"libgcc-ng >=11.2.0\"");
  record("pytorch-2.1.0-py3.10_cpu_0.json", "https://conda.anaconda.org/pytorch/linux-64",
         "\"python >=3.10,<3.11.0a0\", \"pytorch-mutex 1.0 cpu\"");
  record("pytorch-mutex-1.0-cpu.json", "https://conda.anaconda.org/pytorch/noarch", "");
  record("cpuonly-2.0-0.json", "https://conda.anaconda.org/pytorch/noarch", "\"pytorch-mutex 1.0 cpu\"");
  record("torchdata-0.7.0-py310.json", "https://conda.anaconda.org/pytorch/linux-64", "\"cpuonly\", \"pytorch 2.1.0\"");
  auto report = doctor_json(f);
  const auto* x = finding(report, "torch-cpu-only");
  ASSERT_NE(x, nullptr) << report.dump(1).substr(0, 3000);
  std::string evidence = lines_of(*x, "evidence"), fix = lines_of(*x, "fix");
  EXPECT_NE(evidence.find("conda: pytorch 2.1.0 py3.10_cpu_0 (pytorch), a CPU build"), std::string::npos) << evidence;
  EXPECT_NE(evidence.find("conda: cpuonly 2.0 is installed"), std::string::npos) << evidence;
  EXPECT_NE(evidence.find("conda: torchdata 0.7.0 py310 depends on cpuonly"), std::string::npos) << evidence;
  EXPECT_EQ(fix.rfind("conda remove -p " + env + " cpuonly", 0), 0u) << fix;
  EXPECT_NE(fix.find("conda install -p " + env + " -c pytorch -c nvidia \"pytorch=*=*cuda*\" pytorch-cuda=12.4"),
            std::string::npos) << fix;
  EXPECT_EQ(fix.find("pip uninstall"), std::string::npos) << "pip advice would be undone by conda's next solve:\n" << fix;
  // The packages are in the report's facts too.
  bool listed = false;
  for (const auto& e : report.at("facts").at("python_envs"))
    for (const auto& p : e.value("conda_packages", nlohmann::json::array())) listed |= p.value("name", "") == "cpuonly";
  EXPECT_TRUE(listed);
}

// Item 5: WSL1 is told apart from WSL2 (it has no GPU at all), from the kernel's name alone.
TEST(RealFailures, Wsl1IsNotTakenForWsl2) {
  Fixture f;
  add_base_system(f, "ubuntu");
  f.remove("/proc/sys/kernel/osrelease");
  f.write("/proc/version", "Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com) (gcc version 5.4.0 (GCC) ) #1237-Microsoft\n");
  add_torch_venv(f, "/home/alice/venv", TorchSpec{});
  auto report = doctor_json(f);
  const auto* x = finding(report, "wsl1-no-gpu");
  ASSERT_NE(x, nullptr) << report.dump(1).substr(0, 2000);
  EXPECT_NE(lines_of(*x, "fix").find("wsl --set-version <distribution> 2"), std::string::npos);
  EXPECT_EQ(finding(report, "wsl-windows-driver-missing"), nullptr) << "WSL1's fix is another one";
  // WSL2 without the Windows driver is still that.
  f.write("/proc/version", "Linux version 5.15.153.1-microsoft-standard-WSL2 (gcc)\n");
  auto wsl2 = doctor_json(f);
  EXPECT_EQ(finding(wsl2, "wsl1-no-gpu"), nullptr);
  EXPECT_NE(finding(wsl2, "wsl-windows-driver-missing"), nullptr);
}

// Item 5: in WSL2, a Linux libcuda put ahead of /usr/lib/wsl/lib by LD_LIBRARY_PATH is named with
// the variable and the entry to drop.
TEST(RealFailures, Wsl2LinuxLibcudaFirstThroughLdLibraryPath) {
  Fixture f;
  add_base_system(f, "ubuntu");
  f.write("/proc/version", "Linux version 5.15.153.1-microsoft-standard-WSL2 (gcc)\n");
  f.write("/dev/dxg", "", 0666);
  add_user_driver(f, "1.1", "devices=1\ndev0.name=NVIDIA GeForce RTX 4090\ndev0.cc=8.9\ncuda.driver_version=12080\n",
                  "/usr/lib/wsl/lib");
  add_user_driver(f, "550.54.14", "devices=1\ndev0.name=NVIDIA GeForce RTX 4090\ndev0.cc=8.9\ncuda.driver_version=12040\n",
                  "/usr/local/cuda-12.4/compat");
  write_ld_cache(f, {{"libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1"}, {"libnvidia-ml.so.1", "/usr/lib/wsl/lib/libnvidia-ml.so.1"}});
  add_torch_venv(f, "/home/alice/venv", TorchSpec{});
  f.env["LD_LIBRARY_PATH"] = "/usr/local/cuda-12.4/compat:/home/alice/lib";
  auto report = doctor_json(f);
  const auto* x = finding(report, "wsl-linux-driver-installed");
  ASSERT_NE(x, nullptr) << report.dump(1).substr(0, 3000);
  EXPECT_NE(lines_of(*x, "evidence").find("LD_LIBRARY_PATH lists /usr/local/cuda-12.4/compat, searched before /usr/lib/wsl/lib"),
            std::string::npos) << x->dump(1);
  EXPECT_NE(lines_of(*x, "fix").find("export LD_LIBRARY_PATH=/home/alice/lib"), std::string::npos) << x->dump(1);
}

// Item 5: inside a container, libraries of another driver than the host's module are the image's:
// the fix removes them from the image, it does not reboot or rmmod.
TEST(RealFailures, ContainerDriverMismatchIsTheImagesDriver) {
  Fixture f;
  healthy_gpu_machine(f);
  f.write("/.dockerenv", "");
  add_loaded_driver(f, "570.86.10");
  write_driver_conf(f, "devices=1\ndev0.name=NVIDIA H100 80GB HBM3\ndev0.cc=9.0\ncuda.driver_version=13000\nnvml.init=18\ncuda.init=803\n");
  auto report = doctor_json(f);
  const auto* x = finding(report, "driver-library-mismatch");
  ASSERT_NE(x, nullptr) << report.dump(1).substr(0, 3000);
  std::string fix = lines_of(*x, "fix");
  EXPECT_NE(fix.find("remove the driver installed in the image"), std::string::npos) << fix;
  EXPECT_EQ(fix.find("rmmod"), std::string::npos) << fix;
  EXPECT_EQ(fix.rfind("sudo reboot", 0), std::string::npos) << fix;
}

// Item 6: expandable_segments with max_split_size_mb asserts in torch 2.1-2.4: an error with the
// corrected value; valid and harmless with 2.5 and later.
TEST(RealFailures, AllocatorOptionsThatAssertTogether) {
  Fixture f;
  healthy_gpu_machine(f);
  f.remove("/home/alice/venv");
  add_torch_venv(f, "/home/alice/venv", TorchSpec{"2.3.1+cu121", "12.1", {}, {}});
  f.env["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True,max_split_size_mb:512";
  auto report = doctor_json(f);
  const auto* x = finding(report, "alloc-conf-conflict");
  ASSERT_NE(x, nullptr) << report.dump(1).substr(0, 3000);
  EXPECT_NE(lines_of(*x, "fix").find("export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n"), std::string::npos) << x->dump(1);
  f.remove("/home/alice/venv");
  add_torch_venv(f, "/home/alice/venv", TorchSpec{"2.5.1+cu124", "12.4", {}, {}});
  EXPECT_EQ(finding(doctor_json(f), "alloc-conf-conflict"), nullptr);
}

// A machine with one old GPU and the 470 driver (Kepler's last branch), torch `torch` installed.
void old_gpu_machine(Fixture& f, const std::string& device, const std::string& name, const std::string& cc,
                     const std::string& torch, const std::string& cuda) {
  add_base_system(f);
  add_nvidia_gpu(f, "0000:01:00.0", device);
  add_loaded_driver(f, "470.256.02");
  write_kernel_module(f, "/lib/modules/6.1.0-test-amd64/updates/dkms/nvidia.ko", "470.256.02");
  add_device_nodes(f, 1);
  add_user_driver(f, "470.256.02", "devices=1\ndev0.name=" + name + "\ndev0.cc=" + cc + "\ncuda.driver_version=11040\n");
  add_torch_venv(f, "/home/alice/venv", TorchSpec{torch, cuda, {}, {}});
}

// Item 4: the tables reach back to torch 1.0, so an old GPU no current build covers is sent to the
// last release that has its code (with that release's index and Pythons), not to the CPU wheel;
// a GPU no build ever covered gets a source build; no doubled parenthesis either way.
TEST(RealFailures, OldGpusAreSentToTheLastBuildWithTheirCode) {
  Fixture k40;
  old_gpu_machine(k40, "1023", "Tesla K40m", "3.5", "2.4.1+cu121", "12.1");
  auto report = doctor_json(k40);
  const auto* x = finding(report, "arch-not-supported");
  ASSERT_NE(x, nullptr) << report.dump(1).substr(0, 3000);
  std::string fix = lines_of(*x, "fix");
  EXPECT_NE(fix.find("pip install 'torch==1.2.*' torchvision -f https://download.pytorch.org/whl/cu100/torch_stable.html "
                     "(torch 1.2 has wheels for Python 2.7 to 3.7 only)"), std::string::npos) << fix;
  EXPECT_EQ(fix.find(") ("), std::string::npos) << fix;
  EXPECT_EQ(fix.find("whl/cpu"), std::string::npos) << fix;
  // A K80 (3.7): the cu118 builds kept sm_37 through 2.7.
  Fixture k80;
  old_gpu_machine(k80, "102d", "Tesla K80", "3.7", "2.4.1+cu121", "12.1");
  auto k80_report = doctor_json(k80);
  const auto* y = finding(k80_report, "arch-not-supported");
  ASSERT_NE(y, nullptr);
  EXPECT_NE(lines_of(*y, "fix").find("pip install 'torch==2.7.*' torchvision --index-url https://download.pytorch.org/whl/cu118"),
            std::string::npos) << y->dump(1);
  // A Kepler sm_30 (GTX 680): no published build ever had its code.
  Fixture gtx680;
  old_gpu_machine(gtx680, "1180", "GeForce GTX 680", "3.0", "2.4.1+cu121", "12.1");
  auto gtx680_report = doctor_json(gtx680);
  const auto* z = finding(gtx680_report, "arch-not-supported");
  ASSERT_NE(z, nullptr);
  std::string source = lines_of(*z, "fix");
  EXPECT_NE(source.find("no published PyTorch build has code for"), std::string::npos) << source;
  EXPECT_NE(source.find("build it from source with TORCH_CUDA_ARCH_LIST"), std::string::npos) << source;
  EXPECT_EQ(source.find(") ("), std::string::npos) << source;
}

// Item 4: a torch 1.x wheel is judged by its own release's table (1.3.1 dropped sm_35: #30532).
TEST(RealFailures, Torch1xWheelsAreJudgedByTheirOwnArchList) {
  Fixture k40;
  old_gpu_machine(k40, "1023", "Tesla K40m", "3.5", "1.4.0", "10.1");
  auto with_14 = doctor_json(k40);
  const auto* x = finding(with_14, "arch-not-supported");
  ASSERT_NE(x, nullptr) << with_14.dump(1).substr(0, 3000);
  EXPECT_NE(lines_of(*x, "evidence").find("3.7+PTX;5.0;6.0;6.1;7.0;7.5"), std::string::npos) << x->dump(1);
  Fixture ok;
  old_gpu_machine(ok, "1023", "Tesla K40m", "3.5", "1.2.0", "10.0");
  EXPECT_EQ(finding(doctor_json(ok), "arch-not-supported"), nullptr);
}

// Item 1 in a conda environment: conda's libcusparse 12.1 beside conda's libnvjitlink 12.0 (the
// channels mixed), both in the environment's lib/ where torch's RUNPATH points. The fix is conda's.
TEST(RealFailures, ACondaEnvironmentsLibraryLacksASymbolItsNeighbourNeeds) {
  Fixture f;
  healthy_gpu_machine(f);
  f.remove("/home/alice/venv");
  f.env.erase("VIRTUAL_ENV");
  const std::string env = "/home/alice/miniconda3/envs/ml", lib = env + "/lib", sp = lib + "/python3.10/site-packages";
  f.env["CONDA_PREFIX"] = env;
  add_torch_to_site_packages(f, sp, TorchSpec{"2.1.0", "12.1", {}, {}});
  const std::string r = f.root;
  f.write("/src/jit.map", "libnvJitLink.so.12 { global: __nvJitLinkAddData_12_0; local: *; };\n");
  f.write("/src/jit.c", "int __nvJitLinkAddData_12_0(void) { return 0; }\n");
  f.write("/src/jit_new.map", "libnvJitLink.so.12 { global: __nvJitLinkAddData_12_0; __nvJitLinkAddData_12_1; local: *; };\n");
  f.write("/src/jit_new.c", "int __nvJitLinkAddData_12_0(void) { return 0; }\nint __nvJitLinkAddData_12_1(void) { return 1; }\n");
  f.write("/src/cusparse.c", "int __nvJitLinkAddData_12_1(void);\nint cusparseCreate(void) { return __nvJitLinkAddData_12_1(); }\n");
  f.write("/src/torch_cuda.c", "int cusparseCreate(void);\nint torch_cuda_init(void) { return cusparseCreate(); }\n");
  f.mkdir("/build");
  cc("-shared -fPIC -Wl,-soname,libnvJitLink.so.12 -Wl,--version-script=" + r + "/src/jit_new.map -o " + r +
     "/build/libnvJitLink.so.12 " + r + "/src/jit_new.c");
  cc("-shared -fPIC -Wl,-soname,libnvJitLink.so.12 -Wl,--version-script=" + r + "/src/jit.map -o " + r + lib +
     "/libnvJitLink.so.12.0.76 " + r + "/src/jit.c");
  f.link(lib + "/libnvJitLink.so.12", "libnvJitLink.so.12.0.76");
  cc("-shared -fPIC -Wl,-soname,libcusparse.so.12 -o " + r + lib + "/libcusparse.so.12 " + r + "/src/cusparse.c -L" + r +
     "/build -l:libnvJitLink.so.12 -Wl,--enable-new-dtags,-rpath,'$ORIGIN'");
  f.remove(std::string(sp) + "/torch/lib/libtorch_cuda.so");
  cc("-shared -fPIC -o " + r + sp + "/torch/lib/libtorch_cuda.so " + r + "/src/torch_cuda.c -L" + r + lib +
     " -l:libcusparse.so.12 -Wl,-rpath-link," + r + "/build -Wl,-rpath,'$ORIGIN/../../../..'");
  auto record = [&](const std::string& file, const std::string& channel) {
    f.write(env + "/conda-meta/" + file, "{\n  \"build\": \"0\",\n  \"channel\": \"" + channel + "\",\n  \"depends\": []\n}\n");
  };
  record("libnvjitlink-12.0.76-0.json", "https://conda.anaconda.org/nvidia/linux-64");
  record("libcusparse-12.1.0.106-0.json", "https://conda.anaconda.org/nvidia/linux-64");
  record("pytorch-2.1.0-py3.10_cuda12.1_cudnn8.9.2_0.json", "https://conda.anaconda.org/pytorch/linux-64");
  record("pytorch-cuda-12.1-ha16c6d3_5.json", "https://conda.anaconda.org/pytorch/linux-64");
  auto report = doctor_json(f);
  const auto* x = finding(report, "library-symbol-missing");
  ASSERT_NE(x, nullptr) << report.dump(1).substr(0, 3000);
  std::string evidence = lines_of(*x, "evidence"), fix = lines_of(*x, "fix");
  EXPECT_NE(evidence.find(lib + "/libcusparse.so.12: undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12"),
            std::string::npos) << evidence;
  EXPECT_NE(evidence.find("conda: libnvjitlink 12.0.76 0 (nvidia) provides libnvJitLink.so.12"), std::string::npos) << evidence;
  EXPECT_EQ(fix.rfind("conda install -p " + env + " -c nvidia \"libnvjitlink>=12.1\"", 0), 0u) << fix;
  EXPECT_EQ(fix.find("pip install"), std::string::npos) << fix;
}

// Item 8: the shell's `python` is another interpreter than the active venv's (conda's base put
// first on PATH after the venv was activated): named, with the interpreter to run.
TEST(RealFailures, PythonOnPathIsNotTheActiveEnvironments) {
  Fixture f;
  healthy_gpu_machine(f);
  f.write("/home/alice/miniconda3/bin/python", "#!/bin/sh\n", 0755);
  f.write("/home/alice/miniconda3/conda-meta/python-3.12.7-h5148396_0.json", "{}\n");
  f.write("/home/alice/miniconda3/lib/python3.12/site-packages/pip/__init__.py", "");
  f.env["PATH"] = "/home/alice/miniconda3/bin:/home/alice/venv/bin:/usr/local/bin:/usr/bin:/bin";
  auto report = doctor_json(f);
  const auto* x = finding(report, "python-not-the-active-env");
  ASSERT_NE(x, nullptr) << report.dump(1).substr(0, 3000);
  EXPECT_NE(lines_of(*x, "evidence").find("python on PATH is /home/alice/miniconda3/bin/python"), std::string::npos) << x->dump(1);
  EXPECT_NE(lines_of(*x, "fix").find("/home/alice/venv/bin/python"), std::string::npos) << x->dump(1);
  EXPECT_EQ(report.at("facts").at("python_on_path").at("prefix"), "/home/alice/miniconda3");
  // Activated last, the venv's own python comes first: nothing to say.
  f.env["PATH"] = "/home/alice/venv/bin:/home/alice/miniconda3/bin:/usr/bin:/bin";
  f.write("/home/alice/venv/bin/python", "#!/bin/sh\n", 0755);
  EXPECT_EQ(finding(doctor_json(f), "python-not-the-active-env"), nullptr);
}

// Item 4: a stray PTX older than every kernel the build ships does not make a GPU below the build's
// oldest SASS usable (torch calls such a GPU too old). The rule is pure over facts: the scan of
// libtorch_cuda.so as the doctor records it.
TEST(RealFailures, PtxOlderThanTheBuildsKernelsDoesNotRescueAnOldGpu) {
  Fixture f;
  old_gpu_machine(f, "1023", "Tesla K40m", "3.5", "2.4.1+cu121", "12.1");
  Facts facts = f.facts();
  GpuCode scan;
  scan.library = "/home/alice/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so";
  scan.sass = {50, 60, 70, 75, 80, 86, 90};
  scan.ptx = {35};
  facts.gpu_code = {scan};
  auto report = diagnose(facts);
  EXPECT_TRUE(has_finding(report, "arch-not-supported")) << finding_ids(report);
  EXPECT_FALSE(has_finding(report, "ptx-jit-only")) << finding_ids(report);
  // A GPU newer than the build still runs its newest PTX (sm_120 on compute_90): unchanged.
  facts.gpu_code[0].ptx = {90};
  facts.gpu_code[0].sass = {50, 60, 70, 75, 80, 86, 90};
  Fixture g;
  old_gpu_machine(g, "2b85", "NVIDIA GeForce RTX 5090", "12.0", "2.4.1+cu121", "12.1");
  Facts newer = g.facts();
  newer.gpu_code = facts.gpu_code;
  EXPECT_FALSE(has_finding(diagnose(newer), "arch-not-supported"));
}

// Item 8: an environment of any Python is found, a python2.7 one included.
TEST(RealFailures, APython27EnvironmentIsFound) {
  Fixture f;
  healthy_gpu_machine(f);
  f.write("/home/alice/venvs/old/pyvenv.cfg", "home = /usr/bin\nversion = 2.7.18\n");
  add_torch_to_site_packages(f, "/home/alice/venvs/old/lib/python2.7/site-packages", TorchSpec{"1.4.0", "10.1", {}, {}});
  auto report = doctor_json(f);
  bool found = false;
  for (const auto& e : report.at("facts").at("python_envs"))
    if (e.value("prefix", "") == "/home/alice/venvs/old") {
      found = true;
      EXPECT_EQ(e.value("python_version", ""), "2.7");
      EXPECT_EQ(e.at("torch")[0].value("version", ""), "1.4.0");
    }
  EXPECT_TRUE(found) << report.at("facts").at("python_envs").dump(1);
}

// Item 2: conda's CUDA libraries of another major than the torch build's (libcusparse 12 from
// another package beside pytorch-cuda=11.7): the library torch needs is not found, and the fix is
// conda's pytorch-cuda, not pip's wheels.
TEST(RealFailures, CondaCudaLibrariesOfAnotherMajorThanTorchs) {
  Fixture f;
  healthy_gpu_machine(f);
  f.remove("/home/alice/venv");
  f.env.erase("VIRTUAL_ENV");
  const std::string env = "/home/alice/miniconda3/envs/old", lib = env + "/lib", sp = lib + "/python3.10/site-packages";
  f.env["CONDA_PREFIX"] = env;
  add_torch_to_site_packages(f, sp, TorchSpec{"1.13.1", "11.7", {}, {}});
  const std::string r = f.root;
  f.write("/src/cusparse.c", "int cusparseCreate(void) { return 0; }\n");
  f.write("/src/torch_cuda.c", "int cusparseCreate(void);\nint torch_cuda_init(void) { return cusparseCreate(); }\n");
  f.mkdir("/build");
  cc("-shared -fPIC -Wl,-soname,libcusparse.so.11 -o " + r + "/build/libcusparse.so.11 " + r + "/src/cusparse.c");
  cc("-shared -fPIC -Wl,-soname,libcusparse.so.12 -o " + r + lib + "/libcusparse.so.12 " + r + "/src/cusparse.c");
  f.remove(sp + "/torch/lib/libtorch_cuda.so");
  cc("-shared -fPIC -o " + r + sp + "/torch/lib/libtorch_cuda.so " + r + "/src/torch_cuda.c -L" + r +
     "/build -l:libcusparse.so.11 -Wl,-rpath,'$ORIGIN/../../../..'");
  for (const char* file : {"pytorch-1.13.1-py3.10_cuda11.7_cudnn8.5.0_0.json", "pytorch-cuda-11.7-h778d358_5.json",
                           "libcusparse-12.0.0.76-0.json"})
    f.write(env + "/conda-meta/" + file, "{\n  \"build\": \"0\",\n  \"channel\": \"https://conda.anaconda.org/nvidia\",\n  \"depends\": []\n}\n");
  auto report = doctor_json(f);
  const auto* x = finding(report, "cuda-lib-unresolvable");
  ASSERT_NE(x, nullptr) << report.dump(1).substr(0, 3000);
  std::string fix = lines_of(*x, "fix");
  EXPECT_EQ(fix.rfind("conda install -p " + env + " -c pytorch -c nvidia pytorch-cuda=11.7", 0), 0u) << fix;
  EXPECT_EQ(fix.find("pip install"), std::string::npos) << fix;
}

}  // namespace
}  // namespace dlready::test
