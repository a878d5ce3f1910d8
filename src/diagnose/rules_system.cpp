// Rules about the machine itself: GPUs on the bus, kernel driver, device nodes, containers, WSL.
#include <algorithm>
#include <cstdio>

#include "core/path_text.hpp"
#include "core/text.hpp"
#include "diagnose/catalogue.hpp"
#include "compat/compat.hpp"
#include "diagnose/rules.hpp"

namespace dlready {
namespace {

std::string gpu_label(const PciFunction& fn) {
  return fn.address + " [10de:" + fn.device_id + "] " + pci_gpu_name(fn.name, fn.vendor_id, fn.device_id);
}

std::vector<std::string> driver_install_fix(const Facts& f) {
  std::string id = f.os.id.value_or("");
  if (id == "ubuntu") return {"sudo ubuntu-drivers install", "sudo reboot"};
  if (id == "debian")
    return {"sudo apt-get install -y linux-headers-$(uname -r) nvidia-driver firmware-misc-nonfree "
            "(enable the contrib and non-free components first)",
            "sudo reboot"};
  if (id == "fedora" || id == "rhel" || id == "rocky" || id == "almalinux" || id == "centos")
    return {"sudo dnf install -y nvidia-driver (from NVIDIA's CUDA repository or RPM Fusion)", "sudo reboot"};
  return {"install the NVIDIA driver for your distribution (or the .run installer from "
          "https://www.nvidia.com/Download/index.aspx)",
          "sudo reboot"};
}

// WSL1 runs Linux binaries on the NT kernel through a translation layer: no /dev/dxg, no GPU at all.
// Its kernel release says "4.4.0-<Windows build>-Microsoft"; WSL2's is a real Linux kernel
// ("5.15.153.1-microsoft-standard-WSL2", earlier "4.19.104-microsoft-standard").
bool wsl1(const Facts& f) {
  if (!f.os.wsl || !f.os.kernel) return false;
  return contains(*f.os.kernel, "Microsoft") && !contains(to_lower(*f.os.kernel), "microsoft-standard");
}

void wsl_linux_driver_rule(const Facts& f, std::vector<Finding>& out) {
  bool linux_driver = f.libcuda.found() && !f.libcuda.wsl;
  if (!linux_driver && !f.kernel.nvidia_loaded && !(f.libnvml.found() && !f.libnvml.wsl)) return;
  auto x = make_finding("wsl-linux-driver-installed");
  if (linux_driver) x.evidence.push_back("libcuda.so.1 resolves to " + *f.libcuda.path + " (not /usr/lib/wsl/lib)");
  if (f.libnvml.found() && !f.libnvml.wsl) x.evidence.push_back("libnvidia-ml.so.1 resolves to " + *f.libnvml.path);
  // LD_LIBRARY_PATH is searched before ld.so.cache, where /usr/lib/wsl/lib is listed: an entry holding
  // a Linux libcuda puts it first (the usual cause is a CUDA toolkit's or a Linux distribution's folder).
  std::vector<std::string> dirs;
  for (const auto* lib : {&f.libcuda, &f.libnvml})
    if (lib->found() && !lib->wsl) {
      auto dir = path_dirname(*lib->path);
      for (const auto& p : split(f.env.get("LD_LIBRARY_PATH").value_or(""), ':'))
        if (!p.empty() && path_normalize(p) == path_normalize(dir) &&
            std::find(dirs.begin(), dirs.end(), dir) == dirs.end())
          dirs.push_back(dir);
    }
  for (const auto& dir : dirs) {
    x.evidence.push_back("LD_LIBRARY_PATH lists " + dir + ", searched before /usr/lib/wsl/lib");
    x.fix.push_back("drop it: export LD_LIBRARY_PATH=" + join(ld_library_path_without_dir(f, dir), ":") +
                    " (and in ~/.bashrc, where it is set)");
  }
  x.fix.insert(x.fix.end(), {"sudo apt-get remove --purge '^nvidia-.*' '^libnvidia-.*' (never install a Linux driver "
                             "inside WSL2)",
                             "sudo ldconfig", "wsl --shutdown (from Windows), then reopen the distribution"});
  out.push_back(x);
}

// WSL2: the GPU arrives through /dev/dxg and the Windows driver's libraries.
void wsl_rules(const Facts& f, std::vector<Finding>& out) {
  if (!f.os.wsl) return;
  if (wsl1(f)) {
    auto x = make_finding("wsl1-no-gpu");
    x.evidence = {"kernel " + *f.os.kernel + ": WSL1 (WSL2's kernel is named \"...-microsoft-standard-WSL2\")",
                  std::string("/dev/dxg ") + (f.os.wsl_dxg ? "present" : "missing")};
    x.fix = {"in PowerShell: wsl -l -v (the VERSION column), then wsl --set-version <distribution> 2",
             "or make WSL2 the default for new ones: wsl --set-default-version 2",
             "then install the NVIDIA driver for Windows (it includes WSL2's GPU support), not a Linux one"};
    out.push_back(x);
    return;
  }
  if (!f.os.wsl_dxg || !f.os.wsl_libcuda) {
    auto x = make_finding("wsl-windows-driver-missing");
    x.evidence.push_back("/proc/version mentions Microsoft (WSL2)");
    x.evidence.push_back(std::string("/dev/dxg ") + (f.os.wsl_dxg ? "present" : "missing"));
    x.evidence.push_back(std::string("/usr/lib/wsl/lib/libcuda.so.1 ") + (f.os.wsl_libcuda ? "present" : "missing"));
    x.fix = {"install the current NVIDIA driver for Windows (it includes WSL2 support): "
             "https://www.nvidia.com/Download/index.aspx",
             "in PowerShell: wsl --update; wsl --shutdown", "reopen the distribution and run dlready doctor again"};
    out.push_back(x);
  }
  wsl_linux_driver_rule(f, out);
}


// Is there a GPU at all, and can this container reach it.
void presence_rules(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  if (!d.gpu_evidence && f.pci.sysfs_denied && !f.os.wsl) {
    // Not being allowed to look is not the same as finding nothing.
    auto x = make_finding("gpu-presence-unknown");
    x.evidence.push_back("/sys/bus/pci/devices exists but cannot be read by this user, and no driver answered");
    x.fix = {"run dlready doctor as a user who can read /sys (or as root)",
             "in a container: do not mask /sys; with --root: make the copied sys/bus/pci readable"};
    out.push_back(x);
  } else if (!d.gpu_evidence && !(f.os.wsl && !f.os.wsl_dxg)) {
    auto x = make_finding("no-nvidia-gpu");
    if (f.pci.sysfs_readable)
      x.evidence.push_back("no PCI function with vendor 0x10de and class 0x0300/0x0302 in /sys/bus/pci/devices");
    else
      x.evidence.push_back("/sys/bus/pci/devices is not readable, and no driver answered");
    for (const auto& o : f.pci.other_gpus)
      x.evidence.push_back("other display adapter: " + o.address + " " + o.name.value_or("[" + o.vendor_id + ":" + o.device_id + "]"));
    // A VM's PCI devices are the VM's own: a GPU in the host is not there unless it is passed through.
    const std::string vm = f.os.virtual_machine ? "a virtual machine (" + *f.os.virtual_machine + ")" : "";
    if (!vm.empty())
      x.evidence.push_back((d.in_container ? "inside a " + *f.os.container + " container in " : std::string("this is ")) + vm +
                           ": its PCI devices are the VM's, and no NVIDIA GPU is passed through to it");
    else if (d.in_container)
      x.evidence.push_back("inside a " + *f.os.container + " container: the host's PCI devices are visible here, "
                           "and none is an NVIDIA GPU");
    x.fix = {"train on the CPU: dlready train --device cpu",
             "or move to a machine with an NVIDIA GPU and run dlready doctor there"};
    if (!vm.empty())
      x.fix.insert(x.fix.begin() + 1, "or give the VM a GPU: PCI passthrough (VFIO) or a vGPU profile on the host, or a "
                                      "cloud instance type with one");
    out.push_back(x);
  }

  if (d.container_blocked) {
    auto x = make_finding("container-without-gpu");
    x.evidence.push_back("inside a " + *f.os.container + " container");
    x.evidence.push_back(std::to_string(d.pci_gpus) + " NVIDIA GPU(s) on the host's PCI bus");
    x.evidence.push_back("no /dev/nvidia[0-9]* device node" + std::string(f.libcuda.found() ? "" : " and no libcuda.so.1"));
    if (auto v = f.env.get("NVIDIA_VISIBLE_DEVICES")) x.evidence.push_back("NVIDIA_VISIBLE_DEVICES=" + *v);
    x.fix = {"docker run --gpus all ... (podman: --device nvidia.com/gpu=all)",
             "Kubernetes: request the GPU (resources.limits: nvidia.com/gpu: 1) with the NVIDIA device plugin",
             "on the host, install the NVIDIA Container Toolkit: sudo apt-get install -y nvidia-container-toolkit && "
             "sudo nvidia-ctk runtime configure --runtime=docker && sudo systemctl restart docker"};
    out.push_back(x);
  }
  if (d.in_container) {
    if (auto caps = f.env.get("NVIDIA_DRIVER_CAPABILITIES")) {
      if (!contains(*caps, "compute") && !contains(*caps, "all")) {
        auto x = make_finding("container-missing-compute-capability");
        x.evidence.push_back("NVIDIA_DRIVER_CAPABILITIES=" + *caps);
        x.fix = {"docker run --gpus all -e NVIDIA_DRIVER_CAPABILITIES=compute,utility ...",
                 "or in the Dockerfile: ENV NVIDIA_DRIVER_CAPABILITIES=compute,utility"};
        out.push_back(x);
      }
    }
  }
}

void shm_rules(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  if (f.os.shm_bytes && *f.os.shm_bytes < (1ull << 30)) {
    auto x = make_finding("shm-too-small");
    x.evidence.push_back("/dev/shm is " + human_bytes(*f.os.shm_bytes) + " (less than 1 GiB)");
    x.fix = d.in_container ? std::vector<std::string>{"docker run --shm-size=8g ... (or --ipc=host)",
                                                      "Kubernetes: mount an emptyDir with medium: Memory at /dev/shm"}
                           : std::vector<std::string>{"sudo mount -o remount,size=8G /dev/shm"};
    out.push_back(x);
  }
}

}  // namespace

std::optional<Finding> cpu_oversubscribed(const CpuLoad& load, std::optional<int> cpus, bool cuda_usable) {
  if (!cpus || *cpus <= 0) return std::nullopt;
  // The reader itself is one of the runnable tasks; a load above the processors means waiting.
  bool by_load = load.load_1min && *load.load_1min > *cpus * 1.5;
  bool by_runnable = load.runnable && *load.runnable - 1 > *cpus;
  if (!by_load && !by_runnable) return std::nullopt;
  auto x = make_finding("cpu-oversubscribed");
  char buf[160];
  std::snprintf(buf, sizeof buf, "load average %.2f over the last minute, %d task(s) running now, on %d processor(s)",
                load.load_1min.value_or(0.0), std::max(0, load.runnable.value_or(1) - 1), *cpus);
  x.evidence.push_back(buf);
  if (!load.running_commands.empty()) x.evidence.push_back("running now: " + join(load.running_commands, ", "));
  x.fix = {"let the other work finish, or stop it (top, sorted by CPU, shows it)",
           "run the job with fewer threads so it does not fight them: dlready train --threads 1"};
  if (cuda_usable) x.fix.push_back("or train on the GPU: dlready train --device cuda");
  return x;
}

namespace {

// A zero BAR1 line in sysfs, cross-checked with what the driver says (the first H200, a VM whose
// CUDA worked, showed one): NVML's BAR1 size settles it; where CUDA runs on the GPU it is info
// about what is lost; only a GPU that does not answer gets the warning and the BIOS fix.
std::optional<Finding> bar_unassigned(const Facts& f, const PciFunction& g) {
  const NvmlDevice* nvml = nullptr;
  for (const auto& d : f.nvml.devices)
    if (d.pci_bus_id && same_pci_address(*d.pci_bus_id, g.address)) nvml = &d;
  if (nvml && nvml->bar1_total.value_or(0) > 0) return std::nullopt;  // the driver mapped it: sysfs shows less
  bool answers = false;
  for (const auto& d : f.driver.devices) answers = answers || (d.pci_bus_id && same_pci_address(*d.pci_bus_id, g.address));
  answers = answers && f.driver.init_result == 0;
  const bool vm = f.os.virtual_machine.has_value();
  auto x = make_finding("gpu-bar-unassigned");
  x.evidence.push_back(gpu_label(g) + ": BAR1 has no address range in /sys/bus/pci/devices/" + g.address + "/resource" +
                       (nvml ? "; NVML reports no BAR1 size either" : ""));
  if (vm) x.evidence.push_back("a virtual machine (" + *f.os.virtual_machine + "): the hypervisor assigns the BARs");
  if (answers) {
    x.severity = Severity::info;
    x.title = "A GPU's BAR1 is not visible: CUDA works, peer-to-peer and GPUDirect mappings do not";
    x.evidence.push_back("CUDA initialised and answers on this GPU: training on it works; what needs BAR1 is "
                         "peer-to-peer between GPUs and GPUDirect RDMA/Storage");
  }
  if (vm && answers)
    x.fix = {"nothing to do for training on this GPU; for GPUDirect or peer-to-peer, ask the provider for an "
             "instance type that exposes the GPU's large BAR"};
  else if (vm)
    x.fix = {"the hypervisor maps the BARs: give the VM a 64-bit MMIO window as large as the GPU's memory (the "
             "provider's large-BAR instance types; QEMU/libvirt: a larger pci-hole64-size)"};
  else
    x.fix = {"enable 'Above 4G decoding' and 'Resizable BAR' in the BIOS/UEFI setup, then reboot"};
  return x;
}

std::vector<const PciFunction*> nvidia_gpus(const Facts& f) {
  std::vector<const PciFunction*> gpus;
  for (const auto& fn : f.pci.nvidia)
    if (fn.is_gpu) gpus.push_back(&fn);
  return gpus;
}

// The GPUs on the bus: other display adapters, BARs, PCIe links, GPUs the driver lost.
void pci_rules(const Facts& f, const Derived& d, const std::vector<const PciFunction*>& gpus,
               std::vector<Finding>& out) {
  if (!gpus.empty() && !f.pci.other_gpus.empty()) {
    auto x = make_finding("hybrid-graphics");
    for (const auto& o : f.pci.other_gpus)
      x.evidence.push_back("display adapter " + o.address + " " + o.name.value_or("[" + o.vendor_id + ":" + o.device_id + "]"));
    x.fix = {"CUDA programs use the NVIDIA GPU directly; for graphics pick the high-performance NVIDIA GPU "
             "(prime-select nvidia, or __NV_PRIME_RENDER_OFFLOAD=1 __GLX_VENDOR_LIBRARY_NAME=nvidia per program)"};
    out.push_back(x);
  }
  for (const auto* g : gpus) {
    if (g->bar_sizes.size() >= 2 && g->bar_sizes[1] == 0 && g->driver)
      if (auto x = bar_unassigned(f, *g)) out.push_back(*x);
    if (g->link_width && g->max_link_width && *g->link_width < *g->max_link_width) {
      auto x = make_finding("pcie-link-degraded");
      x.evidence.push_back(gpu_label(*g) + ": link x" + std::to_string(*g->link_width) + " of x" +
                           std::to_string(*g->max_link_width) + " (" + g->link_speed.value_or("?") + " of " +
                           g->max_link_speed.value_or("?") + ")");
      x.fix = {"reseat the card in a full x16 slot (no riser), and check the slot's wiring in the board manual",
               "confirm under load: nvidia-smi --query-gpu=pcie.link.width.current,pcie.link.width.max --format=csv"};
      out.push_back(x);
    }
  }
  if (d.pci_gpus > 0 && f.nvml.device_count && *f.nvml.device_count < d.pci_gpus) {
    auto x = make_finding("gpu-count-mismatch");
    x.evidence.push_back(std::to_string(d.pci_gpus) + " NVIDIA GPU(s) in sysfs, " +
                         std::to_string(*f.nvml.device_count) + " answer NVML");
    for (const auto* g : gpus) x.evidence.push_back(gpu_label(*g) + " (driver: " + g->driver.value_or("none") + ")");
    x.fix = {"enable 'Above 4G decoding' and 'Resizable BAR' in the BIOS/UEFI setup",
             "sudo dmesg | grep -iE 'NVRM|Xid' to see why a GPU failed to initialise",
             "check the GPU's power cables and seating"};
    out.push_back(x);
  }
}

Finding nouveau_finding(const Facts& f, const std::vector<std::string>& evidence) {
  auto x = make_finding("nouveau-loaded");
  x.evidence = evidence;
  const std::string distribution = f.os.id.value_or("");
  bool rhel = distribution == "fedora" || distribution == "rhel" || distribution == "rocky" || distribution == "almalinux";
  x.fix = {"printf 'blacklist nouveau\\nblacklist nova_core\\noptions nouveau modeset=0\\n' | sudo tee "
           "/etc/modprobe.d/blacklist-nouveau.conf",
           rhel ? "sudo dracut --force" : "sudo update-initramfs -u"};
  if (!f.kernel.module_file) {
    auto install = driver_install_fix(f);
    x.fix.insert(x.fix.end(), install.begin(), install.end() - 1);
  }
  x.fix.push_back("sudo reboot");
  return x;
}

Finding driver_not_loaded_finding(const Facts& f, const std::vector<const PciFunction*>& gpus) {
  auto x = make_finding("driver-not-loaded");
  for (const auto* g : gpus) x.evidence.push_back(gpu_label(*g) + " bound to: " + g->driver.value_or("no driver"));
  x.evidence.push_back("/proc/driver/nvidia/version is missing; module nvidia is not in /proc/modules");
  if (f.kernel.module_file) {
    x.evidence.push_back("a module is installed for kernel " + f.os.kernel.value_or("(unknown kernel)") + ": " + *f.kernel.module_file);
    x.fix = {"sudo modprobe nvidia && sudo modprobe nvidia_uvm",
             "if that fails: sudo dmesg | grep -i nvidia; with 'Key was rejected by service' Secure Boot "
             "refuses the module: sign it (sudo mokutil --import /var/lib/dkms/mok.pub) or disable Secure Boot",
             "if the module was built for another kernel: sudo dkms autoinstall && sudo reboot"};
  } else {
    x.evidence.push_back("no nvidia.ko under /lib/modules/" + f.os.kernel.value_or("(unknown kernel)"));
    x.fix = driver_install_fix(f);
  }
  for (const auto* g : gpus)
    if (g->driver == "vfio-pci")
      x.fix.insert(x.fix.begin(), g->address + " is reserved for VM passthrough (vfio-pci): unbind it or run "
                                               "CUDA inside that VM");
  return x;
}

// Kernel driver (not applicable inside WSL2, where the Windows driver owns the GPU).
void kernel_driver_rules(const Facts& f, const Derived& d, const std::vector<const PciFunction*>& gpus,
                         std::vector<Finding>& out) {
  if (gpus.empty() || f.os.wsl || d.container_blocked) return;
  std::vector<std::string> nouveau_evidence;
  for (const auto* g : gpus)
    if (g->driver == "nouveau" || g->driver == "nova_core" || g->driver == "nova-core")
      nouveau_evidence.push_back(gpu_label(*g) + " is bound to " + *g->driver);
  if (f.kernel.nouveau_loaded) nouveau_evidence.push_back("module nouveau is loaded (/proc/modules)");
  if (f.kernel.nova_core_loaded) nouveau_evidence.push_back("module nova_core is loaded (/proc/modules)");
  if (!nouveau_evidence.empty()) {
    out.push_back(nouveau_finding(f, nouveau_evidence));
  } else if (!f.kernel.nvidia_loaded) {
    out.push_back(driver_not_loaded_finding(f, gpus));
  }
  if (f.kernel.loaded_version && f.kernel.module_file_version &&
      *f.kernel.loaded_version != *f.kernel.module_file_version) {
    auto x = make_finding("driver-reboot-required");
    x.evidence.push_back("loaded module: " + *f.kernel.loaded_version);
    x.evidence.push_back("installed module " + *f.kernel.module_file + ": " + *f.kernel.module_file_version);
    x.fix = {"sudo reboot"};
    out.push_back(x);
  }
}

}  // namespace

void rules_system(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  const bool cuda_usable = f.driver.status == ProbeStatus::ok && f.driver.init_result == 0 &&
                           f.driver.device_count.value_or(0) > 0;
  if (auto x = cpu_oversubscribed(f.os.load, f.os.cpu_count, cuda_usable)) out.push_back(*x);
  wsl_rules(f, out);
  presence_rules(f, d, out);
  shm_rules(f, d, out);
  auto gpus = nvidia_gpus(f);
  pci_rules(f, d, gpus, out);
  kernel_driver_rules(f, d, gpus, out);
}

std::string drop_from_ld_library_path(const Facts& f, const std::string& dir) {
  auto keep = ld_library_path_without_dir(f, dir);
  return "drop " + dir + " from LD_LIBRARY_PATH: " +
         (keep.empty() ? std::string("unset LD_LIBRARY_PATH") : "export LD_LIBRARY_PATH=" + join(keep, ":"));
}

std::vector<std::string> ld_library_path_without_dir(const Facts& f, const std::string& dir) {
  std::vector<std::string> keep;
  for (const auto& p : split(f.env.get("LD_LIBRARY_PATH").value_or(""), ':'))
    if (!p.empty() && path_normalize(p) != path_normalize(dir)) keep.push_back(p);
  return keep;
}

}  // namespace dlready
