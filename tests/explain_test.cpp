// `dlready explain` through the binary: every error signature recognises the message a public report
// quotes (data/error_signatures.tsv names the report), the causes are confirmed on a fixture
// machine or said to be likely, a finding's entry is printed by id, and a stranger's text gets one
// line and the right exit status.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <map>
#include <set>

#include "core/text.hpp"
#include "diagnose/catalogue.hpp"
#include "diagnose/error_signatures.hpp"
#include "fixture.hpp"

namespace dlready::test {
namespace {

CommandRun explain(const std::string& args, const std::string& stdin_text = "", const std::string& env = "") {
  Fixture in;
  in.write("/in.txt", stdin_text);
  return run_command(env + " " + DLREADY_BINARY + " explain " + args + " < " + in.root + "/in.txt 2>&1");
}

// On the fixture machine, in its user's environment.
CommandRun explain_on(const Fixture& f, const std::string& args, const std::string& text) {
  return explain(args + " --load-root-drivers --root " + f.root, text, f.env_command());
}

nlohmann::json explained(const std::string& message) {
  auto run = explain("--no-examine --json -", message);
  auto j = nlohmann::json::parse(run.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << run.out;
  return j;
}

// Each signature with a message as a public report quotes it (the row's `seen in`), and the values
// it must read from it.
struct RealMessage {
  const char* signature;
  const char* message;
  std::map<std::string, std::string> values;
};

const std::vector<RealMessage>& real_messages() {
  static const std::vector<RealMessage> m = {
      {"arch-not-compatible",
       "/usr/lib/python3.11/site-packages/torch/cuda/__init__.py:209: UserWarning:\nNVIDIA GeForce "
       "RTX 5090 with CUDA "
       "capability sm_120 is not compatible with the current PyTorch installation.\nThe current "
       "PyTorch install supports "
       "CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.",
       {{"gpu", "NVIDIA GeForce RTX 5090"}, {"cc", "120"}}},
      {"gpu-too-old",
       "    Found GPU0 NVIDIA GeForce GTX 680 which is of cuda capability 3.0.\n"
       "    PyTorch no longer supports this GPU because it is too old.\n"
       "    The minimum cuda capability supported by this library is 3.7.",
       {{"index", "0"}, {"gpu", "NVIDIA GeForce GTX 680"}, {"cc", "3.0"}}},
      {"pip-no-matching-distribution",
       "ERROR: Could not find a version that satisfies the requirement torch==1.5.1+cpu (from versions: 0.1.2, "
       "0.1.2.post1, 0.1.2.post2)\nERROR: No matching distribution found for torch==1.5.1+cpu",
       {{"package", "torch==1.5.1+cpu"}}},
      {"no-kernel-image",
       "RuntimeError: CUDA error: no kernel image is available for execution on the device",
       {}},
      {"driver-too-old",
       "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please "
       "update your GPU driver by "
       "downloading and installing a new version from the URL: "
       "http://www.nvidia.com/Download/index.aspx",
       {{"driver", "11040"}, {"driver_cuda", "11.4"}}},
      {"not-compiled-with-cuda",
       "    raise AssertionError(\"Torch not compiled with CUDA enabled\")\nAssertionError: Torch "
       "not compiled with CUDA enabled",
       {}},
      {"undefined-symbol-versioned",
       "ImportError: "
       "/usr/local/lib/python3.10/dist-packages/torch/lib/../../nvidia/cusparse/lib/"
       "libcusparse.so.12: "
       "undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12",
       {{"library",
         "/usr/local/lib/python3.10/dist-packages/torch/lib/../../nvidia/cusparse/lib/"
         "libcusparse.so.12"},
        {"symbol", "__nvJitLinkAddData_12_1"},
        {"version", "libnvJitLink.so.12"}}},
      {"undefined-symbol",
       "ImportError: "
       "/root/.local/conda/envs/yolov10/lib/python3.9/site-packages/torch/lib/libtorch_cuda.so: "
       "undefined "
       "symbol: ncclCommRegister",
       {{"library",
         "/root/.local/conda/envs/yolov10/lib/python3.9/site-packages/torch/lib/libtorch_cuda.so"},
        {"symbol", "ncclCommRegister"}}},
      {"cannot-open-shared-object",
       "    from torch._C import *  # noqa: F403\nImportError: libcudnn.so.8: cannot open shared "
       "object file: No such file "
       "or directory",
       {{"library", "libcudnn.so.8"}}},
      {"winerror-126-fbgemm",
       "OSError: [WinError 126] The specified module could not be found. Error loading "
       "\"C:\\Users\\user\\anaconda3\\Lib\\site-packages\\torch\\lib\\fbgemm.dll\" or one of its "
       "dependencies.",
       {{"folder", "C:\\Users\\user\\anaconda3\\Lib\\site-packages\\torch\\lib\\"},
        {"reason", "The specified module could not be found."}}},
      {"winerror-126-c10",
       "OSError: [WinError 126] Le module spécifié est introuvable. Error loading "
       "\"C:\\ai\\stable-diffusion-webui\\venv\\lib\\site-packages\\torch\\lib\\c10.dll\" or one of its dependencies.",
       {{"folder", "C:\\ai\\stable-diffusion-webui\\venv\\lib\\site-packages\\torch\\lib\\"},
        {"reason", "Le module spécifié est introuvable."}}},
      {"winerror-126",
       "OSError: [WinError 126] The specified module could not be found. Error loading "
       "\"C:\\Users\\palam\\AppData\\Roaming\\Python\\Python310\\site-packages\\torch\\lib\\shm.dll\" or one of its dependencies.",
       {{"dll", "C:\\Users\\palam\\AppData\\Roaming\\Python\\Python310\\site-packages\\torch\\lib\\shm.dll"},
        {"reason", "The specified module could not be found."}}},
      {"nvml-version-mismatch", "Failed to initialize NVML: Driver/library version mismatch", {}},
      {"numpy2-abi",
       "A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.0.0 as it may crash.",
       {}},
      {"numpy-array-api",
       "<stdin>:1: UserWarning: Failed to initialize NumPy: _ARRAY_API not found (Triggered "
       "internally at "
       "..\\torch\\csrc\\utils\\tensor_numpy.cpp:84.)",
       {}},
      {"expandable-segment-assert",
       "RuntimeError: !block->expandable_segment_ INTERNAL ASSERT FAILED at "
       "\"../c10/cuda/CUDACachingAllocator.cpp\":2814, "
       "please report a bug to PyTorch.",
       {}},
      {"no-cuda-gpus", "    torch._C._cuda_init()\nRuntimeError: No CUDA GPUs are available", {}},
      {"glibcxx-version-not-found",
       "ImportError: /usr/lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.30' not found "
       "(required by "
       "/home/user/lib/python3.10/site-packages/torch/lib/libtorch_python.so)",
       {{"provider", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"},
        {"version", "GLIBCXX_3.4.30"},
        {"library", "/home/user/lib/python3.10/site-packages/torch/lib/libtorch_python.so"}}},
      {"dataloader-bus-error",
       "RuntimeError: DataLoader worker (pid 11011) is killed by signal: Bus error. It is possible "
       "that dataloader's "
       "workers are out of shared memory. Please try to raise your shared memory limit.",
       {{"pid", "11011"}}},
      {"found-no-nvidia-driver",
       "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA "
       "GPU and installed a "
       "driver from http://www.nvidia.com/Download/index.aspx",
       {}},
      {"nvidia-smi-no-driver",
       "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
       "that the latest NVIDIA "
       "driver is installed and running.",
       {}},
      {"mps-needs-newer-macos",
       "RuntimeError: The MPS backend is supported on MacOS 12.3+.Current OS version can be "
       "queried "
       "using `sw_vers`",
       {{"macos", "12.3"}}},
      {"mps-needs-newer-macos-lower",
       "RuntimeError: The MPS backend is supported on macOS 14.0+. Current OS version can be "
       "queried using `sw_vers`",
       {{"macos", "14.0"}}},
      {"cuda-out-of-memory",
       "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 22.78 GiB. GPU 0 has a total "
       "capacity of 31.47 GiB "
       "of which 12.73 GiB is free. Including non-PyTorch memory, this process has 18.73 GiB "
       "memory in use.",
       {{"size", "22.78"}, {"unit", "GiB"}}},
      {"cublas-not-initialized",
       "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling "
       "`cublasCreate(handle)`",
       {}},
      {"nccl-unhandled-system-error",
       "RuntimeError: NCCL error in ProcessGroupNCCL.cpp:290, unhandled system error",
       {}},
      {"cuda-system-not-initialized",
       "RuntimeError: cuda runtime error (802) : system not yet initialized at "
       "/opt/conda/conda-bld/pytorch_1579022034529/work/aten/src/THC/THCGeneral.cpp:50",
       {}},
      {"cuda-compat-unsupported",
       "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions "
       "before calling "
       "NumCudaDevices() that might have already set an error? Error 804: forward compatibility "
       "was attempted on non "
       "supported HW",
       {}},
      {"cuda-devices-busy",
       "RuntimeError: cuda runtime error (46) : all CUDA-capable devices are busy or unavailable "
       "at "
       "/opt/conda/conda-bld/pytorch_1503970438496/work/torch/lib/THC/generic/THCStorage.cu:66",
       {}},
      {"cuda-driver-insufficient",
       "RuntimeError: cuda runtime error (35) : CUDA driver version is insufficient for CUDA "
       "runtime version at "
       "/pytorch/torch/csrc/cuda/Module.cpp:34",
       {}},
  };
  return m;
}

TEST(Explain, EverySignatureRecognisesTheMessageAPublicReportQuotes) {
  std::set<std::string> tested;
  for (const auto& r : real_messages()) {
    tested.insert(r.signature);
    auto j = explained(r.message);
    ASSERT_FALSE(j.is_discarded());
    ASSERT_EQ(j["messages"].size(), 1u) << r.signature << ": " << j.dump(1);
    const auto& m = j["messages"][0];
    EXPECT_EQ(m["signature"], r.signature) << j.dump(1);
    for (const auto& [name, value] : r.values) EXPECT_EQ(m["values"].value(name, ""), value) << r.signature << " " << name;
    EXPECT_FALSE(j["findings"].empty()) << r.signature;
    // Nothing was examined: only the finding the message proves by its own words is confirmed (by it).
    std::string decides;
    for (const auto& s : error_signatures())
      if (s.id == r.signature) decides = s.decides;
    // Where the values decide: the missing library is cuDNN's (the traceback names no pip torch,
    // whose wheel would be the one missing), the symbol NCCL's (an older copy).
    const std::map<std::string, std::string> by_values = {{"cannot-open-shared-object", "cuda-lib-unresolvable"},
                                                          {"undefined-symbol", "library-symbol-missing"}};
    if (by_values.count(r.signature)) decides = by_values.at(r.signature);
    for (const auto& f : j["findings"]) {
      EXPECT_EQ(f["confidence"], f["id"] == decides ? "confirmed" : "likely") << r.signature << " " << f.dump();
      if (f["id"] == decides) EXPECT_EQ(f.value("confirmed_by", ""), "message") << f.dump();
    }
    if (!decides.empty()) EXPECT_EQ(j["findings"][0]["id"], decides) << "the proven cause comes first: " << j.dump(1);
    EXPECT_EQ(m["advice"].get<std::string>().find("{"), std::string::npos) << "every {value} filled: " << m["advice"];
  }
  // The table and the catalogue agree: every signature is tested here, every finding it names exists.
  std::set<std::string> ids;
  for (const auto& e : catalogue()) ids.insert(e.id);
  for (const auto& s : error_signatures()) {
    EXPECT_TRUE(tested.count(s.id)) << s.id << " has no real message in this test";
    EXPECT_TRUE(starts_with(s.seen_in, "https://")) << s.id << ": a public report quoting the message";
    for (const auto& f : s.findings) EXPECT_TRUE(ids.count(f)) << s.id << " names " << f << ", not in the catalogue";
    if (!s.decides.empty())
      EXPECT_NE(std::find(s.findings.begin(), s.findings.end(), s.decides), s.findings.end()) << s.id << " decides " << s.decides;
  }
}

// The message on this machine (a fixture root): the doctor confirms the cause and gives its fix.
TEST(Explain, ACauseIsConfirmedOnTheMachineWithTheDoctorsFix) {
  Fixture f;
  healthy_gpu_machine(f);
  add_torch_venv(f, "/home/alice/venv2", TorchSpec{"2.11.0+cpu", "", {}, {}});
  std::string traceback =
      "Traceback (most recent call last):\n  File \"/home/alice/venv2/lib/python3.11/site-packages/torch/cuda/__init__.py\", "
      "line 310, in _lazy_init\n    raise AssertionError(\"Torch not compiled with CUDA enabled\")\nAssertionError: Torch not "
      "compiled with CUDA enabled\n";
  auto run = explain_on(f, "", traceback);
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("[torch-cpu-only] — confirmed on this machine"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("download.pytorch.org/whl/cu"), std::string::npos) << "the doctor's fix: " << run.out;
  EXPECT_EQ(run.out.find("which this examination did not read"), std::string::npos) << run.out;
  auto j = nlohmann::json::parse(explain_on(f, "--json", traceback).out, nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["examined"], true);
  EXPECT_EQ(j["findings"][0]["id"], "torch-cpu-only");
  EXPECT_EQ(j["findings"][0]["confidence"], "confirmed");
}

// A traceback from an environment the doctor did not read: said, with the command that reads it.
TEST(Explain, ATracebackFromAnotherEnvironmentIsNamed) {
  Fixture f;
  healthy_gpu_machine(f);
  std::string traceback =
      "  File \"/home/bob/envs/old/lib/python3.10/site-packages/torch/__init__.py\", line 237, in <module>\n"
      "    from torch._C import *  # noqa: F403\nImportError: libcudnn.so.8: cannot open shared object file: No such file "
      "or directory\n";
  auto run = explain_on(f, "", traceback);
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("The message's torch is in /home/bob/envs/old/lib/python3.10/site-packages, which this "
                         "examination did not read: examine that environment with export VIRTUAL_ENV=/home/bob/envs/old; "
                         "dlready doctor"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("[cuda-lib-unresolvable] — possible (this machine does not show it)"), std::string::npos) << run.out;
}

// A Windows user's message, explained against their machine's capture on Linux (the wine laptop of
// tests/machines): WinError 126 on c10.dll is confirmed as the missing Visual C++ runtime.
TEST(Explain, AWindowsMessageIsConfirmedOnTheMachinesCapture) {
  Fixture unpacked;
  ASSERT_EQ(std::system(("tar -xzf " + std::string(DLREADY_SOURCE_DIR) + "/tests/machines/wine-laptop-win10.tar.gz -C " +
                         unpacked.root)
                            .c_str()),
            0);
  auto run = explain("--json --root " + unpacked.root,
                     "OSError: [WinError 126] The specified module could not be found. Error loading "
                     "\"C:\\Python312\\Lib\\site-packages\\torch\\lib\\c10.dll\" or one of its dependencies.\n");
  auto j = nlohmann::json::parse(run.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << run.out;
  EXPECT_EQ(j["examined"], true);
  ASSERT_GE(j["findings"].size(), 2u) << j.dump(1);
  EXPECT_EQ(j["findings"][0]["id"], "windows-vc-runtime-missing");
  EXPECT_EQ(j["findings"][0]["confidence"], "confirmed");
  bool redist = false;
  for (const auto& fix : j["findings"][0]["fix"]) redist |= fix.get<std::string>().find("vc_redist.x64.exe") != std::string::npos;
  EXPECT_TRUE(redist) << j["findings"][0].dump(1);
}

// A report someone pasted (tests/explain/: collect_env's output as issues carry it, in Markdown
// fences and <details>): its facts, not this machine's, run through the doctor's rules.
std::string pasted(const std::string& file) { return std::string(DLREADY_SOURCE_DIR) + "/tests/explain/" + file; }

nlohmann::json explained_report(const std::string& file, const std::string& message = "") {
  auto run = explain("--json --report " + pasted(file) + (message.empty() ? "" : " " + message));
  auto j = nlohmann::json::parse(run.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << run.out;
  return j;
}

std::map<std::string, std::string> confidence_by_id(const nlohmann::json& j) {
  std::map<std::string, std::string> out;
  for (const auto& f : j["findings"]) out[f["id"]] = f["confidence"];
  return out;
}

TEST(Explain, APastedCollectEnvIsJudgedByTheDoctorsRules) {
  // The RTX 5090 on torch 2.2.0+cu121 with NumPy 2: the message and the report agree.
  auto rtx = explained_report("rtx5090_torch22_numpy2.md");
  EXPECT_EQ(rtx["examined"], false) << "this machine is not examined";
  auto c = confidence_by_id(rtx);
  EXPECT_EQ(c["arch-not-supported"], "confirmed") << rtx.dump(1);
  EXPECT_EQ(c["torch-needs-numpy1"], "confirmed") << rtx.dump(1);
  EXPECT_EQ(rtx["findings"][0]["evidence"][0], "cuda:0 NVIDIA GeForce RTX 5090 is sm_120");
  auto read = rtx["report"]["read"].dump();
  EXPECT_NE(read.find("driver 570.86.16"), std::string::npos) << read;
  // No message at all: a CPU build on an RTX 4090 (Windows) is the cause the report shows.
  auto cpu = explained_report("cpu_build_on_4090.txt");
  EXPECT_EQ(confidence_by_id(cpu)["torch-cpu-only"], "confirmed") << cpu.dump(1);
  EXPECT_TRUE(cpu["messages"].empty());
  // The driver of the report against the CUDA of its torch.
  auto old = explained_report("old_driver_cu121.txt");
  EXPECT_EQ(confidence_by_id(old)["driver-too-old"], "confirmed") << old.dump(1);
  // A report that cannot decide: no cause invented (a torch of unknown build is not a CPU build),
  // and what it lacks is said.
  auto undecided = explain("--report " + pasted("undecided.txt"));
  EXPECT_EQ(undecided.status, 1) << undecided.out;
  EXPECT_NE(undecided.out.find("no cause in the report"), std::string::npos) << undecided.out;
  EXPECT_NE(undecided.out.find("The report lacks whether this torch is a CUDA build"), std::string::npos) << undecided.out;
  EXPECT_NE(undecided.out.find("the driver version"), std::string::npos) << undecided.out;
  // nvidia-smi's table and pip list, no collect_env: the driver, the GPU and a +cpu torch.
  auto smi = explained_report("nvidia_smi_and_pip_list.txt");
  EXPECT_EQ(confidence_by_id(smi)["torch-cpu-only"], "confirmed") << smi.dump(1);
  EXPECT_NE(smi["report"]["read"].dump().find("GPU 0: NVIDIA GeForce RTX 3090 (sm_86)"), std::string::npos) << smi.dump(1);
  EXPECT_NE(smi["report"]["read"].dump().find("driver 535.104.05"), std::string::npos) << smi.dump(1);
  EXPECT_EQ(smi["report"]["read"].dump().find("N/A"), std::string::npos) << "a process row is no GPU: " << smi.dump(1);
  // conda list: conda's CPU build, with conda's fix (pip's would reinstall the CPU build). No GPU
  // in the paste: the CPU build is not a cause it can show, and the GPU is what it lacks.
  auto conda = explain("--report " + pasted("conda_list_cpuonly.txt"));
  EXPECT_EQ(conda.status, 1) << conda.out;
  EXPECT_NE(conda.out.find("From the report: PyTorch 2.1.0; a CPU build"), std::string::npos) << conda.out;
  EXPECT_NE(conda.out.find("the GPU (collect_env's"), std::string::npos) << conda.out;
  // --report takes one file each time (repeatable), so the message can follow it.
  auto two = explain("--report " + pasted("nvidia_smi_and_pip_list.txt") + " --report " + pasted("conda_list_cpuonly.txt") +
                     " 'AssertionError: Torch not compiled with CUDA enabled'");
  EXPECT_EQ(two.status, 0) << two.out;
  EXPECT_NE(two.out.find("line 1: AssertionError: Torch not compiled with CUDA enabled"), std::string::npos) << two.out;
  EXPECT_NE(two.out.find("[torch-cpu-only] — confirmed by the report"), std::string::npos) << two.out;
  // nvidia-smi -q (a GPU's memory and compute mode) and variables as `echo $X` and env print them:
  // the OOM is the memory another process holds, in a compute mode that admits one process.
  auto oom =
      explained_report("nvidia_smi_q_exclusive_oom.txt",
                       "'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.'");
  auto oc = confidence_by_id(oom);
  EXPECT_EQ(oc["gpu-memory-busy"], "confirmed") << oom.dump(1);
  EXPECT_EQ(oc["compute-mode-exclusive"], "confirmed") << oom.dump(1);
  EXPECT_EQ(oc["nccl-variables-set"], "confirmed") << oom.dump(1);
  auto oom_read = oom["report"]["read"].dump();
  for (const char* said : {"driver 550.90.07", "GPU 0: NVIDIA H100 80GB HBM3 (sm_90)",
                           "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True", "NCCL_P2P_DISABLE=1",
                           "PyTorch 2.6.0+cu124"})
    EXPECT_NE(oom_read.find(said), std::string::npos) << said << ": " << oom_read;
  EXPECT_EQ(oom_read.find("BAR1"), std::string::npos)
      << "BAR1's Total/Used are not the GPU's memory: " << oom_read;
  // `pip list | grep torch` keeps no header and `pip show torch` has its own form: both give the torch.
  auto grep = explained_report("nvidia_smi_and_pip_list_grep.md");
  EXPECT_EQ(confidence_by_id(grep)["arch-not-supported"], "confirmed") << grep.dump(1);
  EXPECT_NE(grep["report"]["read"].dump().find("PyTorch 2.5.1+cu124"), std::string::npos) << grep.dump(1);
  auto show = explained_report("pip_show_cpu_build.txt");
  EXPECT_EQ(confidence_by_id(show)["torch-cpu-only"], "confirmed") << show.dump(1);
  EXPECT_NE(show["report"]["read"].dump().find("PyTorch 2.3.1+cpu"), std::string::npos) << show.dump(1);
  // A Python session's answers (torch.__version__, torch.version.cuda) and nvidia-smi -q's driver
  // line as pasted ("470.82.01    CUDA Version: 11.4"): the driver against the torch's CUDA.
  auto repl = explained_report("python_repl_old_driver.txt");
  EXPECT_EQ(confidence_by_id(repl)["driver-too-old"], "confirmed") << repl.dump(1);
  auto repl_read = repl["report"]["read"].dump();
  for (const char* said : {"PyTorch 2.4.0+cu121", "driver 470.82.01\"", "built for CUDA 12.1"})
    EXPECT_NE(repl_read.find(said), std::string::npos) << said << ": " << repl_read;
  auto text = explain("--report " + pasted("rtx5090_torch22_numpy2.md"));
  EXPECT_NE(text.out.find("[arch-not-supported] — confirmed by the report"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("<env>/bin/python -m pip install \"numpy<2\""), std::string::npos) << text.out;
}

TEST(Explain, AFindingIdPrintsItsEntryAndTheMessagesThatPointToIt) {
  auto run = explain("driver-too-old");
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("driver-too-old (error): The NVIDIA driver is too old for the installed PyTorch"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("\"The NVIDIA driver on your system is too old (found version {driver}\" (PyTorch"),
            std::string::npos)
      << run.out;
}

// A stranger's text: one line, the right status, nothing hangs or reaches the terminal raw.
TEST(Explain, AStrangersTextGetsOneLineAndTheRightStatus) {
  auto none = explain("-", "all good here\nno error at all\n");
  EXPECT_EQ(none.status, 1) << none.out;
  EXPECT_NE(none.out.find("no message dlready knows in the text (2 lines)"), std::string::npos) << none.out;
  Fixture files;
  auto missing = explain("--from " + files.root + "/nope.txt");
  EXPECT_EQ(missing.status, 2) << missing.out;
  EXPECT_NE(missing.out.find("dlready explain: " + files.root + "/nope.txt: cannot open"), std::string::npos) << missing.out;
  ASSERT_EQ(::mkfifo((files.root + "/fifo").c_str(), 0644), 0);
  auto fifo = explain("--from " + files.root + "/fifo");
  EXPECT_EQ(fifo.status, 2) << fifo.out;
  EXPECT_EQ(std::count(fifo.out.begin(), fifo.out.end(), '\n'), 1) << fifo.out;
  auto both = explain("--from " + files.root + "/x 'Torch not compiled with CUDA enabled'");
  EXPECT_EQ(both.status, 2) << both.out;
  // A value carrying a terminal escape, on a line of a megabyte: escaped, recognised, quick.
  std::string hostile = std::string(1 << 20, 'a') + "\nImportError: lib\x1b[2Jx.so: undefined symbol: f\x07oo\n";
  auto j = explained(hostile);
  ASSERT_EQ(j["messages"].size(), 1u) << j.dump(1);
  EXPECT_EQ(j["messages"][0]["values"]["library"], "lib\\x1b[2Jx.so");
  auto text = explain("--no-examine -", hostile);
  EXPECT_EQ(text.out.find('\x1b'), std::string::npos) << "an escape reached the terminal";
  // As Markdown to post: no escape, no HTML a stranger's text could open.
  auto markdown = explain("--no-examine --markdown -", "ImportError: <img src=x>.so: undefined symbol: foo\n");
  EXPECT_EQ(markdown.status, 0) << markdown.out;
  EXPECT_NE(markdown.out.find("**The causes**"), std::string::npos) << markdown.out;
  EXPECT_NE(markdown.out.find("&lt;img src=x>.so was built against"), std::string::npos) << markdown.out;
  // More than 16 MiB on standard input is refused, not read without end.
  auto big = run_command("head -c 17000000 /dev/zero | " + std::string(DLREADY_BINARY) + " explain - 2>&1");
  EXPECT_EQ(big.status, 2) << big.out.substr(0, 200);
  EXPECT_NE(big.out.find("more than 16 MiB"), std::string::npos) << big.out.substr(0, 200);
}


// Pastes in the shape public bug reports carry them (tests/explain/real/cases.tsv: the file, the
// cause the report's thread confirmed, the report): each names that cause first, confirmed by the
// paste — the message's own words, or the report's facts through the doctor's rules.
TEST(Explain, RealReportsNameTheCauseTheirThreadConfirmed) {
  const std::string dir = std::string(DLREADY_SOURCE_DIR) + "/tests/explain/real/";
  std::ifstream cases(dir + "cases.tsv");
  std::string line;
  int total = 0, named = 0;
  while (std::getline(cases, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto f = split(line, '\t');
    ASSERT_EQ(f.size(), 3u) << line;
    ++total;
    auto run = run_command(std::string(DLREADY_BINARY) + " explain --json --report " + dir + f[0] + " 2>&1");
    auto j = nlohmann::json::parse(run.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << f[0] << ": " << run.out;
    EXPECT_EQ(run.status, 0) << f[0];
    bool first = !j["findings"].empty() && j["findings"][0]["id"] == f[1] && j["findings"][0]["confidence"] == "confirmed";
    named += first;
    EXPECT_TRUE(first) << f[0] << " (" << f[2] << ") should name " << f[1] << " first, confirmed: " << j["findings"].dump(1);
  }
  EXPECT_GE(total, 15);
  std::printf("real reports: %d of %d name the confirmed cause first\n", named, total);
}


// Without a report, the message's own text holds the clues: a traceback through a pip torch
// ("…/site-packages/torch/__init__.py") that cannot open libcudnn.so.9 is a missing nvidia-cudnn
// wheel; the same message without the traceback is only "a CUDA library the loader cannot find".
TEST(Explain, ATracebacksPathsDecideBetweenTheCausesOfOneMessage) {
  const std::string traceback =
      "  File \"/home/u/venv/lib/python3.11/site-packages/torch/__init__.py\", line 427, in <module>\n"
      "    from torch._C import *  # noqa: F403\n"
      "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory\n";
  auto pip = explained(traceback);
  ASSERT_FALSE(pip["findings"].empty()) << pip.dump(1);
  EXPECT_EQ(pip["findings"][0]["id"], "torch-cuda-wheel-missing") << pip.dump(1);
  EXPECT_EQ(pip["findings"][0].value("confirmed_by", ""), "message") << pip.dump(1);
  EXPECT_NE(pip["findings"][0]["fix"][0].get<std::string>().find("pip install --force-reinstall torch"), std::string::npos);
  auto bare = explained("ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory");
  EXPECT_EQ(bare["findings"][0]["id"], "cuda-lib-unresolvable") << bare.dump(1);
  auto driver = explained("ImportError: libcuda.so.1: cannot open shared object file: No such file or directory");
  EXPECT_EQ(driver["findings"][0]["id"], "libcuda-missing") << driver.dump(1);
  auto other = explained("ImportError: libgomp.so.1: cannot open shared object file: No such file or directory");
  for (const auto& f : other["findings"]) EXPECT_EQ(f["confidence"], "likely") << "not a CUDA library: " << other.dump(1);
}


// What keeps the NVIDIA module from loading, when the paste shows it beside nvidia-smi's failure:
// mokutil's "SecureBoot enabled", lsmod's nouveau row; without either, nothing is decided.
TEST(Explain, SecureBootOrNouveauInThePasteDecideWhyTheDriverDidNotLoad) {
  const std::string failed =
      "$ nvidia-smi\nNVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the "
      "latest NVIDIA driver is installed and running.\n";
  auto sb = explained(failed + "$ mokutil --sb-state\nSecureBoot enabled\n");
  EXPECT_EQ(sb["findings"][0]["id"], "secure-boot-blocks-driver") << sb.dump(1);
  EXPECT_EQ(sb["findings"][0]["confidence"], "confirmed");
  auto nv = explained(failed + "$ lsmod | grep nouveau\nnouveau              2293760  3\nmxm_wmi                16384  1 nouveau\n");
  EXPECT_EQ(nv["findings"][0]["id"], "nouveau-loaded") << nv.dump(1);
  auto bare = explained(failed);
  for (const auto& f : bare["findings"]) EXPECT_EQ(f["confidence"], "likely") << bare.dump(1);
}

// pip's CUDA torch beside conda's CPU pytorch of another release: two installs in one
// environment, and "Torch not compiled with CUDA enabled" came from the other one — the report's
// own torch is a CUDA build, so the message does not confirm torch-cpu-only; the two installs are
// the cause. The same release under both names is one install (pip lists conda's pytorch too).
TEST(Explain, PipsTorchOverCondasPytorchIsTwoInstalls) {
  auto j = explained_report("pip_torch_over_conda_cpu.txt", "'AssertionError: Torch not compiled with CUDA enabled'");
  ASSERT_FALSE(j["findings"].empty()) << j.dump(1);
  EXPECT_EQ(j["findings"][0]["id"], "torch-duplicate-installs") << j.dump(1);
  EXPECT_EQ(confidence_by_id(j)["torch-cpu-only"], "likely") << j.dump(1);
  Fixture same;
  same.write("/paste.txt", "[pip3] torch==2.1.0\n[conda] pytorch                   2.1.0           "
                          "py3.11_cuda12.1_cudnn8.9.2_0    pytorch\n");
  auto run = explain("--json --report " + same.host("/paste.txt") + " 'AssertionError: Torch not compiled with CUDA enabled'");
  auto one = nlohmann::json::parse(run.out, nullptr, false);
  ASSERT_FALSE(one.is_discarded()) << run.out;
  for (const auto& f : one["findings"]) EXPECT_NE(f["id"], "torch-duplicate-installs") << one.dump(1);
  EXPECT_FALSE(one["findings"].empty()) << one.dump(1);
}

// PyPI's own torch wheel is a CPU build on Windows (the platform record says so), not on Linux:
// the same pip line is judged by the OS the paste names.
TEST(Explain, PypisTorchWithoutCudaLabelIsACpuBuildOnlyWhereThePlatformSaysSo) {
  auto judged = [](const std::string& os) {
    Fixture f;
    f.write("/paste.txt", "OS: " + os + "\nGPU models and configuration: GPU 0: NVIDIA GeForce RTX 3060\n"
                          "Nvidia driver version: 551.86\n[pip3] torch==2.3.1\n");
    auto run = explain("--json --report " + f.host("/paste.txt"));
    auto j = nlohmann::json::parse(run.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << run.out;
    return confidence_by_id(j)["torch-cpu-only"];
  };
  EXPECT_EQ(judged("Microsoft Windows 11 Pro"), "confirmed");
  EXPECT_EQ(judged("Ubuntu 22.04.4 LTS (x86_64)"), "");
}

}  // namespace
}  // namespace dlready::test
