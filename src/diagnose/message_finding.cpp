#include "diagnose/message_finding.hpp"

#include "core/path_text.hpp"
#include "core/text.hpp"
#include "diagnose/catalogue.hpp"
#include "diagnose/rules.hpp"

namespace dlready {
namespace {

std::string value_of(const SignatureMatch& m, const std::string& name) {
  auto it = m.values.find(name);
  return it == m.values.end() ? "" : it->second;
}

// The report's torch: "torch 2.2.0+cu121 (built for CUDA 12.1)".
std::string reported_torch(const Facts& f) {
  for (const auto& e : f.python.envs)
    for (const auto& t : e.torch)
      if (t.version) return "torch " + *t.version + (t.cuda && *t.cuda != "unknown" ? " (built for CUDA " + *t.cuda + ")" : "");
  return "";
}

// A folder inside a wheel of NVIDIA's libraries ("…/site-packages/nvidia/nvjitlink/lib"): torch's own copy.
bool wheel_folder(const std::string& dir) {
  return dir.find("-packages/nvidia/") != std::string::npos || dir.find("-packages/torch/lib") != std::string::npos;
}

// The loader picked the copy in `dir`: what put it first, and the fix that takes it out of the way.
void loader_picked(const Facts& f, const std::string& soname, const std::string& dir, Finding& x) {
  const auto ld = f.env.get("LD_LIBRARY_PATH");
  bool listed = false;
  for (const auto& p : split(ld.value_or(""), ':')) listed |= !p.empty() && path_normalize(p) == path_normalize(dir);
  if (listed) {
    x.evidence.push_back("LD_LIBRARY_PATH is \"" + *ld + "\": it lists " + dir + ", which the loader searches before the "
                         "wheel's own folders (RUNPATH)");
    x.fix.insert(x.fix.begin(), drop_from_ld_library_path(f, dir) + " (and where it is set: ~/.bashrc, a module file, a "
                                                                   "conda activate script, a notebook's os.environ)");
    return;
  }
  if (!wheel_folder(dir))
    x.fix.insert(x.fix.begin(), "the loader takes " + dir + "/" + soname + ", not torch's wheel copy: take " + dir +
                                    " out of the loader's path (LD_LIBRARY_PATH, /etc/ld.so.conf.d, a conda env's lib)");
}

// "undefined symbol: X, version V" or "version `V' not found": the copy of a library the loader
// picked is older than the one the dependent was built with. ldd's line says which copy, the
// report's LD_LIBRARY_PATH why.
void picked_copy(const SignatureMatch& m, const Facts& f, const PastedClues& clues, Finding& x) {
  const bool glibcxx = m.signature->id == "glibcxx-version-not-found";
  std::string soname = glibcxx ? path_basename(value_of(m, "provider")) : value_of(m, "version");
  std::string picked = glibcxx ? value_of(m, "provider") : "";
  auto it = clues.ldd.find(soname);
  if (it != clues.ldd.end() && it->second != "not found") {
    picked = it->second;
    x.evidence.push_back("ldd: " + soname + " => " + picked);
  }
  if (!picked.empty() && picked.find('/') != std::string::npos) return loader_picked(f, soname, path_dirname(picked), x);
  if (auto ld = f.env.get("LD_LIBRARY_PATH"); ld && !trim(*ld).empty()) {
    x.evidence.push_back("LD_LIBRARY_PATH is \"" + *ld + "\": its folders come before the wheel's own (RUNPATH)");
    x.fix.insert(x.fix.begin(), "unset LD_LIBRARY_PATH and run again; if that works, remove the folder holding an older " +
                                    soname + " from it where it is set (~/.bashrc, a module file, a notebook's os.environ)");
  }
}

// The libraries of CUDA, cuDNN, NCCL and the like that torch's CUDA build loads ("libcudnn.so.9").
bool cuda_library(const std::string& soname) {
  for (const char* p : {"libcudart.", "libcublas", "libcudnn", "libcufft", "libcurand", "libcusparse", "libcusolver",
                        "libnccl.", "libnvrtc", "libnvJitLink", "libcupti", "libnvToolsExt", "libcufile", "libnvshmem"})
    if (starts_with(soname, p)) return true;
  return false;
}

// A `docker run` that asks for no GPU: no --gpus, no NVIDIA runtime, no NVIDIA_VISIBLE_DEVICES, no /dev/nvidia*.
bool started_without_gpus(const std::string& run) {
  for (const char* asks : {"--gpus", "--runtime=nvidia", "--runtime nvidia", "NVIDIA_VISIBLE_DEVICES", "/dev/nvidia",
                           "nvidia.com/gpu"})
    if (run.find(asks) != std::string::npos) return false;
  return true;
}

// "undefined symbol: X" without a version: a C++ name with the C++11 string ABI is LibTorch's ABI,
// a driver entry point (cuGetProcAddress) the driver library, else an older copy of a library.
std::string undefined_symbol_finding(const std::string& symbol) {
  if (symbol.find("cxx11") != std::string::npos) return "libtorch-abi-mismatch";
  if (symbol.size() > 2 && starts_with(symbol, "cu") && symbol[2] >= 'A' && symbol[2] <= 'Z') return "driver-symbol-missing";
  return "library-symbol-missing";
}

}  // namespace

std::string decided_finding(const SignatureMatch& m, const PastedClues& clues) {
  const std::string& id = m.signature->id;
  if (id == "found-no-nvidia-driver" || id == "nvidia-smi-no-driver" || id == "no-cuda-gpus") {
    for (const auto& run : clues.docker_runs)
      if (started_without_gpus(run)) return "container-without-gpu";
    if (id == "no-cuda-gpus") return "";
    // The module that never loaded: nouveau holds the GPU, or Secure Boot refused an unsigned module.
    if (clues.nouveau_loaded) return "nouveau-loaded";
    if (clues.secure_boot_on) return "secure-boot-blocks-driver";
    return "";
  }
  if (id == "cannot-open-shared-object") {
    const std::string lib = value_of(m, "library");
    if (starts_with(lib, "libcuda.so")) return "libcuda-missing";
    if (!cuda_library(lib)) return "";
    // A pip torch (in site-packages, not under a lib64 its nvidia wheels are not beside) loads its
    // CUDA libraries from the nvidia-* wheels it pins: one of them is missing.
    for (const auto& folder : clues.torch_folders)
      if (folder.find("/lib64/") == std::string::npos) return "torch-cuda-wheel-missing";
    return "cuda-lib-unresolvable";
  }
  if (id == "undefined-symbol") return undefined_symbol_finding(value_of(m, "symbol"));
  if (id == "pip-no-matching-distribution") return clues.python_32bit ? "windows-python-architecture-mismatch" : "";
  return m.signature->decides;
}

Finding message_finding(const SignatureMatch& m, const Facts& facts, const PastedClues& clues) {
  Finding x = make_finding(decided_finding(m, clues));
  x.evidence = {"the message (line " + std::to_string(m.line_number) + "): " + m.line};
  x.fix = {signature_advice(m)};
  const std::string torch = reported_torch(facts);
  const std::string& id = m.signature->id;
  if (id == "undefined-symbol-versioned" || id == "glibcxx-version-not-found") picked_copy(m, facts, clues, x);
  else if (!torch.empty() && id != "nvml-version-mismatch" && id != "cuda-system-not-initialized")
    x.evidence.push_back("the report's " + torch);
  if (x.id == "torch-cuda-wheel-missing" || x.id == "cuda-lib-unresolvable") {
    bool lib64 = false;
    for (const auto& folder : clues.torch_folders) {
      x.evidence.push_back("the torch that failed: " + folder);
      lib64 |= folder.find("/lib64/") != std::string::npos;
    }
    if (lib64)
      x.fix.insert(x.fix.begin(), "torch went to the venv's lib64 and its nvidia-* wheels to lib (a distribution's Python "
                                  "splits platlib and purelib): torch's RUNPATH ($ORIGIN/../../nvidia/...) looks beside "
                                  "itself; link the wheels' folder there: ln -s ../../../lib/python3.X/site-packages/nvidia "
                                  "<venv>/lib64/python3.X/site-packages/nvidia (pytorch#104259's workaround)");
    else if (x.id == "torch-cuda-wheel-missing")
      x.fix.insert(x.fix.begin(), "reinstall torch with the CUDA wheels it pins: pip install --force-reinstall torch "
                                  "(with the same --index-url it came from); pip check lists a wheel that is missing or of another version");
  }
  if (x.id == "secure-boot-blocks-driver")
    x.evidence.push_back("mokutil --sb-state: SecureBoot enabled"),
        x.fix.insert(x.fix.begin(), "enrol the key DKMS signs the module with (sudo mokutil --import /var/lib/dkms/mok.pub, "
                                    "then reboot and confirm it in MOK Manager), or turn Secure Boot off in the firmware");
  if (x.id == "nouveau-loaded")
    x.evidence.push_back("lsmod lists nouveau"),
        x.fix.insert(x.fix.begin(), "blacklist nouveau (echo -e 'blacklist nouveau\\noptions nouveau modeset=0' | sudo tee "
                                    "/etc/modprobe.d/blacklist-nouveau.conf; sudo update-initramfs -u), then reboot");
  if (x.id == "windows-python-architecture-mismatch")
    x.evidence.push_back("the paste shows a 32-bit Python"),
        x.fix.insert(x.fix.begin(), "install the 64-bit Python from python.org (\"Windows installer (64-bit)\"), then pip install torch with it");
  for (const auto& run : clues.docker_runs)
    if (x.id == "container-without-gpu" && started_without_gpus(run))
      x.evidence.push_back("the container was started without GPUs: " + run),
          x.fix.insert(x.fix.begin(), "start it with the GPUs: docker run --gpus all … (the NVIDIA Container Toolkit on the host)");
  if ((id == "numpy2-abi" || id == "numpy-array-api") && !facts.python.envs.empty()) {
    auto& d = facts.python.envs.front().distributions;
    if (auto it = d.find("numpy"); it != d.end()) x.evidence.push_back("the report's numpy " + it->second);
  }
  return x;
}

}  // namespace dlready
