// Rules about the user-space driver on Linux: its device nodes, libraries, the driver API's answer
// and its age against the installed PyTorch (what NVML says of each GPU is rules_devices').
#include "core/text.hpp"
#include "diagnose/catalogue.hpp"
#include "compat/compat.hpp"
#include "diagnose/rules.hpp"
#include "platform/platform_record.hpp"
#include "core/cuda_error_codes.hpp"

namespace dlready {
namespace {

std::string driver_branch(const std::string& version) {
  auto parts = split(version, '.');
  return parts.empty() ? version : parts[0];
}

std::string ld_library_path_without(const Facts& f, const std::string& needle) {
  std::vector<std::string> keep;
  for (const auto& p : split(f.env.get("LD_LIBRARY_PATH").value_or(""), ':'))
    if (!contains(p, needle)) keep.push_back(p);
  return join(keep, ":");
}

void node_rules(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  if (!f.kernel.nvidia_loaded || f.os.wsl || d.container_blocked) return;
  const DeviceNode* uvm = nullptr;
  for (const auto& n : f.nodes.nodes)
    if (n.path == "/dev/nvidia-uvm") uvm = &n;
  if (!uvm || !uvm->exists || !f.kernel.nvidia_uvm_loaded) {
    auto x = make_finding("nvidia-uvm-missing");
    x.evidence.push_back(std::string("/dev/nvidia-uvm ") + (uvm && uvm->exists ? "exists" : "is missing"));
    x.evidence.push_back(std::string("module nvidia_uvm ") + (f.kernel.nvidia_uvm_loaded ? "loaded" : "not loaded"));
    x.fix = d.in_container ? std::vector<std::string>{"restart the container with --gpus all (the runtime adds "
                                                      "/dev/nvidia-uvm)",
                                                      "on the host: sudo modprobe nvidia_uvm"}
                           : std::vector<std::string>{"sudo modprobe nvidia_uvm",
                                                      "sudo nvidia-modprobe -u -c=0 (creates /dev/nvidia-uvm)",
                                                      "after suspend/resume: sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm"};
    out.push_back(x);
  }
  std::vector<std::string> denied;
  for (const auto& n : f.nodes.nodes)
    if (n.exists && !n.accessible && n.path != "/dev/dxg") denied.push_back(n.path + " " + n.mode.value_or(""));
  if (!denied.empty()) {
    auto x = make_finding("device-node-permission");
    x.evidence.push_back("checked for user " + f.nodes.checked_user);
    x.evidence.insert(x.evidence.end(), denied.begin(), denied.end());
    x.fix = {"sudo usermod -aG video,render $USER, then log out and in again (the nodes' group must match)",
             "or restore the driver's default mode 0666: sudo chmod 0666 /dev/nvidia*; for a permanent change "
             "set NVreg_DeviceFileMode=0666 in /etc/modprobe.d/nvidia.conf"};
    out.push_back(x);
  }
}

// The tutorial's safety section asks to restrict access to GPU resources: the driver's default
// mode 0666 lets every local user (and every service account) use the GPUs.
void open_nodes_rule(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  if (d.in_container) return;  // the host decides; inside, the runtime's nodes are for this container
  std::vector<std::string> open;
  for (const auto& n : f.nodes.nodes)
    if (n.exists && n.path != "/dev/dxg" && n.path != "/dev/nvidia-uvm" && n.mode && n.mode->size() == 10 &&
        n.mode->compare(7, 2, "rw") == 0)
      open.push_back(n.path + " " + *n.mode + " " + n.owner.value_or("?") + ":" + n.group.value_or("?"));
  if (open.empty()) return;
  auto x = make_finding("gpu-open-to-all-users");
  x.evidence = open;
  const auto& p = f.nodes.driver_params;
  auto param = [&](const char* k) { return p.count(k) ? p.at(k) : std::string("?"); };
  if (p.count("DeviceFileMode"))
    x.evidence.push_back("/proc/driver/nvidia/params: DeviceFileUID: " + param("DeviceFileUID") + ", DeviceFileGID: " +
                         param("DeviceFileGID") + ", DeviceFileMode: " + param("DeviceFileMode") +
                         " (decimal; 438 = 0666)");
  x.fix = {"let only a group use the GPUs: echo 'options nvidia NVreg_DeviceFileUID=0 NVreg_DeviceFileGID='$(getent "
           "group video | cut -d: -f3)' NVreg_DeviceFileMode=0660' | sudo tee /etc/modprobe.d/nvidia-access.conf",
           "sudo update-initramfs -u (dracut -f on Fedora/RHEL), reboot, then check: grep DeviceFile "
           "/proc/driver/nvidia/params; ls -l /dev/nvidia*",
           "add each user who may train: sudo usermod -aG video <user> (they log in again)"};
  out.push_back(x);
}

void library_rules(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  bool driver_expected = (f.kernel.nvidia_loaded || (f.os.wsl && f.os.wsl_dxg)) && !d.container_blocked;
  if (f.libcuda.found() && f.libcuda.stub) {
    auto x = make_finding("libcuda-stub");
    x.evidence.push_back("libcuda.so.1 resolves to " + *f.libcuda.path + " via " + f.libcuda.found_via);
    if (f.driver.init_result == nv::CUDA_ERROR_STUB_LIBRARY)
      x.evidence.push_back("cuInit returned 34 (CUDA_ERROR_STUB_LIBRARY)");
    if (f.libcuda.found_via == "LD_LIBRARY_PATH")
      x.fix = {"export LD_LIBRARY_PATH=" + ld_library_path_without(f, "stubs") + " (drop the stubs directory)"};
    else
      x.fix = {"remove the stubs directory from /etc/ld.so.conf.d/*.conf, then: sudo ldconfig"};
    x.fix.push_back("link against the stub at build time only: -L/usr/local/cuda/lib64/stubs");
    out.push_back(x);
  } else if (!f.libcuda.found() && driver_expected && !f.os.wsl) {
    auto x = make_finding("libcuda-missing");
    x.evidence.push_back("searched: " + join(f.libcuda.searched, ", "));
    if (f.kernel.loaded_version) x.evidence.push_back("kernel module version " + *f.kernel.loaded_version);
    std::string branch = f.kernel.loaded_version ? driver_branch(*f.kernel.loaded_version) : "<branch>";
    std::string id = f.os.id.value_or("");
    if (d.in_container)
      x.fix = {"docker run --gpus all -e NVIDIA_DRIVER_CAPABILITIES=compute,utility ..."};
    else if (id == "ubuntu")
      x.fix = {"sudo apt-get install -y libnvidia-compute-" + branch, "sudo ldconfig"};
    else if (id == "debian")
      x.fix = {"sudo apt-get install -y libcuda1 (same version as the kernel module)", "sudo ldconfig"};
    else
      x.fix = {"reinstall the NVIDIA driver " + f.kernel.loaded_version.value_or("") +
                   " including its user-space libraries",
               "sudo ldconfig"};
    out.push_back(x);
  }
  if (f.driver.status == ProbeStatus::load_failed) {
    auto x = make_finding("libcuda-load-failed");
    x.evidence.push_back(f.driver.library.value_or("libcuda.so.1") + ": " + f.driver.detail);
    x.fix = {"reinstall the NVIDIA driver's user-space libraries (same version as the kernel module)",
             "check the file: file -L " + f.driver.library.value_or("libcuda.so.1")};
    out.push_back(x);
  }
  for (const auto* probe : {&f.driver.status, &f.nvml.status}) {
    if (*probe != ProbeStatus::symbol_missing) continue;
    bool cuda = probe == &f.driver.status;
    auto x = make_finding("driver-symbol-missing");
    x.evidence.push_back((cuda ? f.driver.library : f.nvml.library).value_or("?") + ": " +
                         (cuda ? f.driver.detail : f.nvml.detail));
    x.fix = {"make sure the loader finds the real NVIDIA driver library, not a copy or a placeholder: "
             "ls -l " + (cuda ? f.driver.library : f.nvml.library).value_or(""),
             "reinstall the NVIDIA driver's user-space libraries"};
    out.push_back(x);
  }
  // Versions: user-space library vs loaded kernel module.
  std::vector<std::string> mismatch;
  if (f.kernel.loaded_version && f.libcuda.version && !f.libcuda.compat && !f.libcuda.stub && !f.libcuda.wsl &&
      compare_versions(*f.kernel.loaded_version, *f.libcuda.version) != 0)
    mismatch.push_back("kernel module " + *f.kernel.loaded_version + ", " + f.libcuda.real_path.value_or(*f.libcuda.path) +
                       " is " + *f.libcuda.version);
  if (f.kernel.loaded_version && f.libnvml.version && !f.libnvml.wsl &&
      compare_versions(*f.kernel.loaded_version, *f.libnvml.version) != 0)
    mismatch.push_back("kernel module " + *f.kernel.loaded_version + ", " + f.libnvml.real_path.value_or(*f.libnvml.path) +
                       " is " + *f.libnvml.version);
  if (f.nvml.init_result == nv::NVML_ERROR_LIB_RM_VERSION_MISMATCH)
    mismatch.push_back("nvmlInit returned 18: Driver/library version mismatch");
  if (f.driver.init_result == nv::CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)
    mismatch.push_back("cuInit returned 803 (CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)");
  if (!mismatch.empty()) {
    auto x = make_finding("driver-library-mismatch");
    x.evidence = mismatch;
    if (d.in_container) {
      // The host owns the kernel module; the NVIDIA container runtime mounts the host's matching
      // libraries, which a driver installed into the image shadows (nvidia-docker#1202 and its kin).
      x.evidence.push_back("inside a " + f.os.container.value_or("container") +
                           ": the kernel module is the host's, the libraries above are the image's");
      x.fix = {"remove the driver installed in the image (the runtime mounts the host's, which match its module): "
               "apt-get remove --purge '^libnvidia-.*' '^nvidia-utils-.*' '^nvidia-driver-.*' && ldconfig, and take "
               "them out of the Dockerfile",
               "start the container with the NVIDIA runtime (docker run --gpus all ...) so the host's libraries are mounted",
               "only if nvidia-smi on the host fails too: reboot the host (its own driver was upgraded)"};
    } else {
      x.fix = {"sudo reboot (loads the kernel module that matches the installed libraries)",
               "or without a reboot, when no process uses the GPU: sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset "
               "nvidia && sudo modprobe nvidia && sudo modprobe nvidia_uvm"};
    }
    out.push_back(x);
  }
}

void init_rules(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  for (const auto* st : {&f.driver.status, &f.nvml.status}) {
    bool cuda = st == &f.driver.status;
    const std::string what = cuda ? "cuInit (libcuda.so.1)" : "nvmlInit (libnvidia-ml.so.1)";
    const std::string& detail = cuda ? f.driver.detail : f.nvml.detail;
    if (*st == ProbeStatus::timeout) {
      auto x = make_finding("driver-probe-hang");
      x.evidence.push_back(what + ": " + detail);
      x.fix = {"sudo dmesg | grep -iE 'NVRM|Xid' (a GPU that fell off the bus or a stuck driver)",
               "check for hung processes: sudo fuser -v /dev/nvidia*",
               "sudo reboot if the driver stays stuck"};
      out.push_back(x);
    } else if (*st == ProbeStatus::crashed) {
      auto x = make_finding("driver-probe-crash");
      x.evidence.push_back(what + ": " + detail);
      x.fix = {"reinstall the NVIDIA driver (the user-space library is damaged or does not match the kernel)",
               "sudo dmesg | grep -iE 'NVRM|Xid'"};
      out.push_back(x);
    }
  }
  if (!f.driver.init_result || *f.driver.init_result == 0) return;
  int rc = *f.driver.init_result;
  std::string code = "cuInit returned " + std::to_string(rc) + " (" +
                     f.driver.init_error_name.value_or(nv::cuda_error_name(rc)) + ")";
  if (rc == nv::CUDA_ERROR_STUB_LIBRARY || rc == nv::CUDA_ERROR_SYSTEM_DRIVER_MISMATCH) return;  // above
  if (rc == nv::CUDA_ERROR_SYSTEM_NOT_READY) {
    auto x = make_finding("fabric-manager-missing");
    x.evidence.push_back(code);
    x.evidence.push_back(std::string("nvidia-fabricmanager ") + (f.kernel.fabric_manager_installed ? "is installed but not ready" : "is not installed"));
    std::string branch = d.driver_version ? driver_branch(*d.driver_version) : "<branch>";
    x.fix = {"sudo apt-get install -y nvidia-fabricmanager-" + branch + " (same version as the driver)",
             "sudo systemctl enable --now nvidia-fabricmanager", "systemctl status nvidia-fabricmanager"};
    out.push_back(x);
    return;
  }
  if (rc == nv::CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE) {
    auto x = make_finding("cuda-compat-on-unsupported-gpu");
    x.evidence.push_back(code);
    x.evidence.push_back("libcuda.so.1 resolves to " + f.libcuda.path.value_or("?") + " via " + f.libcuda.found_via);
    x.fix = {f.libcuda.found_via == "LD_LIBRARY_PATH"
                 ? "export LD_LIBRARY_PATH=" + ld_library_path_without(f, "compat") + " (drop the compat directory)"
                 : "remove the cuda-compat entry from /etc/ld.so.conf.d and run sudo ldconfig (or apt-get remove cuda-compat-*)",
             "upgrade the host driver instead of using forward compatibility on this GPU"};
    out.push_back(x);
    return;
  }
  if (rc == nv::CUDA_ERROR_INSUFFICIENT_DRIVER) return;  // driver-too-old explains it
  if (rc == nv::CUDA_ERROR_NO_DEVICE && f.env.get("CUDA_VISIBLE_DEVICES")) return;  // CVD rules explain it
  auto x = make_finding("cuda-init-failed");
  x.evidence.push_back(code);
  switch (rc) {
    case nv::CUDA_ERROR_UNKNOWN:
      x.fix = {"usually nvidia_uvm after suspend/resume: sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm",
               "else: sudo reboot"};
      break;
    case nv::CUDA_ERROR_NOT_INITIALIZED:
      x.fix = {"the driver is half-installed or mismatched: reinstall it and reboot"};
      break;
    case nv::CUDA_ERROR_NO_DEVICE:
      x.fix = {"no GPU is usable: check nvidia-smi, MIG instances and the compute mode"};
      break;
    case nv::CUDA_ERROR_OPERATING_SYSTEM:
      x.fix = {"check /dev/nvidia* permissions and that nvidia_uvm is loaded: sudo modprobe nvidia_uvm"};
      break;
    default:
      x.fix = {"sudo dmesg | grep -iE 'NVRM|Xid'", "reinstall the driver and reboot"};
  }
  out.push_back(x);
}

void driver_age_rules(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  if (!d.driver_version && !f.driver.driver_version) return;
  std::vector<std::string> evidence;
  std::optional<std::string> need;
  for (const auto& e : f.python.envs) {
    for (const auto& t : e.torch) {
      if (!t.cuda) continue;
      auto min = min_driver_for_cuda(*t.cuda);
      bool too_old = min && d.driver_version && compare_versions(*d.driver_version, *min) < 0;
      // Without a version string, compare CUDA majors from cuDriverGetVersion.
      if (!d.driver_version && f.driver.driver_version && *f.driver.driver_version > 0) {
        int torch_major = static_cast<int>(parse_int(split(*t.cuda, '.')[0]).value_or(0));
        too_old = *f.driver.driver_version / 1000 < torch_major;
      }
      if (!too_old) continue;
      evidence.push_back("torch " + t.version.value_or("?") + " in " + t.site_packages + " is built for CUDA " + *t.cuda +
                         ", which needs driver >= " + min.value_or("?"));
      if (min && (!need || compare_versions(*min, *need) > 0)) need = min;
    }
  }
  if (f.driver.init_result == nv::CUDA_ERROR_INSUFFICIENT_DRIVER)
    evidence.push_back("cuInit returned 35 (CUDA_ERROR_INSUFFICIENT_DRIVER)");
  if (evidence.empty()) return;
  auto x = make_finding("driver-too-old");
  x.evidence.push_back("driver " + d.driver_version.value_or("?") +
                       (d.driver_max_cuda ? " supports CUDA up to " + *d.driver_max_cuda : ""));
  x.evidence.insert(x.evidence.end(), evidence.begin(), evidence.end());
  x.fix = {"upgrade the NVIDIA driver to >= " + need.value_or("the version the wheel needs") +
               (f.os.id.value_or("") == "ubuntu" ? " (sudo ubuntu-drivers install)" : ""),
           "or install a PyTorch build for your driver: " + pip_install_command(f, d)};
  out.push_back(x);
}

}  // namespace

void rules_driver(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  if (!d.gpu_evidence) return;
  node_rules(f, d, out);
  open_nodes_rule(f, d, out);
  library_rules(f, d, out);
  init_rules(f, d, out);
  driver_age_rules(f, d, out);
}

}  // namespace dlready
