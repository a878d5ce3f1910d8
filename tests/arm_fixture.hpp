// Fixture aarch64 machines for the Linux-on-Arm tests (arm_doctor_test.cpp, arm_platform_test.cpp):
// a GH200 and a GB10 behind Grace CPUs, a Jetson Orin, and the aarch64 ELF files they hold.
#pragma once
#include <elf.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fixture.hpp"

namespace dlready::test {

inline constexpr const char* kGh200 = "devices=1\ndev0.name=NVIDIA GH200 480GB\ndev0.cc=9.0\ncuda.driver_version=13000\n";

// The aarch64 half of a machine: its loader (which names its processor) and a Grace CPU's SoC id.
inline void make_grace(Fixture& f) {
  f.write("/lib/ld-linux-aarch64.so.1", "");
  f.write("/sys/devices/soc0/soc_id", "jep106:036b:0241\n");
  f.write("/sys/devices/soc0/family", "jep106:036b\n");
  f.write("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "536870912\n");  // 64K pages
}

// A GH200 with `driver` (its driver conf: what the fake libcuda and NVML answer).
inline void gh200(Fixture& f, const TorchSpec& torch, const std::string& driver = "580.65.06",
                  const std::string& conf = kGh200) {
  add_base_system(f);
  make_grace(f);
  add_nvidia_gpu(f, "0009:01:00.0", "2342");
  add_loaded_driver(f, driver);
  write_kernel_module(f, "/lib/modules/6.1.0-test-amd64/updates/dkms/nvidia.ko", driver);
  add_device_nodes(f, 1);
  add_user_driver(f, driver, conf, "/usr/lib/aarch64-linux-gnu");  // this build's fakes answer for it
  add_torch_venv(f, "/home/alice/venv", torch);
}

// PyPI's torch 2.10 for aarch64: a CPU build whose METADATA still lists the CUDA wheels, each for
// x86_64 only (as the real wheel's does).
inline TorchSpec pypi_aarch64_cpu_wheel() {
  TorchSpec t;
  t.version = "2.10.0", t.cuda = "", t.installed = {};
  t.pins = {};
  return t;
}

inline void write_marked_metadata(Fixture& f) {
  f.write("/home/alice/venv/lib/python3.11/site-packages/torch-2.10.0.dist-info/METADATA",
          "Metadata-Version: 2.1\nName: torch\nVersion: 2.10.0\nRequires-Dist: filelock\n"
          "Requires-Dist: nvidia-cudnn-cu12==9.10.2.21; platform_system == \"Linux\" and platform_machine == \"x86_64\"\n"
          "Requires-Dist: nvidia-nccl-cu12==2.27.5; platform_system == \"Linux\" and platform_machine == \"x86_64\"\n"
          "Requires-Dist: opt-einsum>=3.3; extra == \"opt-einsum\"\n");
}

// A shared object with one PT_LOAD of alignment `align` (what the loader checks against the page size).
inline std::string elf_with_load_align(uint64_t align) {
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64, eh.e_ident[EI_DATA] = ELFDATA2LSB, eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_DYN, eh.e_machine = EM_AARCH64, eh.e_version = EV_CURRENT;
  eh.e_phoff = sizeof eh, eh.e_ehsize = sizeof eh, eh.e_phentsize = sizeof(Elf64_Phdr), eh.e_phnum = 1;
  Elf64_Phdr ph{};
  ph.p_type = PT_LOAD, ph.p_align = align, ph.p_filesz = ph.p_memsz = sizeof eh + sizeof ph;
  std::string bytes(reinterpret_cast<const char*>(&eh), sizeof eh);
  bytes.append(reinterpret_cast<const char*>(&ph), sizeof ph);
  return bytes;
}

// An aarch64 shared object that needs `needed` (DT_NEEDED) and searches `runpath`: one PT_LOAD mapping
// the whole file at address 0, a PT_DYNAMIC, the string table the dynamic entries point into.
inline std::string aarch64_library(const std::vector<std::string>& needed, const std::string& runpath = "") {
  std::string strtab(1, '\0');
  std::vector<Elf64_Dyn> dyn;
  auto add = [&](int64_t tag, const std::string& s) {
    Elf64_Dyn d{};
    d.d_tag = tag, d.d_un.d_val = strtab.size();
    strtab += s + '\0';
    dyn.push_back(d);
  };
  for (const auto& n : needed) add(DT_NEEDED, n);
  if (!runpath.empty()) add(DT_RUNPATH, runpath);
  const uint64_t str_off = sizeof(Elf64_Ehdr) + 2 * sizeof(Elf64_Phdr);
  uint64_t dyn_off = (str_off + strtab.size() + 7) & ~uint64_t{7};
  Elf64_Dyn t{};
  t.d_tag = DT_STRTAB, t.d_un.d_ptr = str_off;
  dyn.push_back(t);
  t.d_tag = DT_STRSZ, t.d_un.d_val = strtab.size();
  dyn.push_back(t);
  dyn.push_back(Elf64_Dyn{});
  uint64_t total = dyn_off + dyn.size() * sizeof(Elf64_Dyn);
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64, eh.e_ident[EI_DATA] = ELFDATA2LSB, eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_DYN, eh.e_machine = EM_AARCH64, eh.e_version = EV_CURRENT;
  eh.e_phoff = sizeof eh, eh.e_ehsize = sizeof eh, eh.e_phentsize = sizeof(Elf64_Phdr), eh.e_phnum = 2;
  Elf64_Phdr ph[2]{};
  ph[0].p_type = PT_LOAD, ph[0].p_align = 0x10000, ph[0].p_filesz = ph[0].p_memsz = total;
  ph[1].p_type = PT_DYNAMIC, ph[1].p_offset = ph[1].p_vaddr = dyn_off, ph[1].p_align = 8;
  ph[1].p_filesz = ph[1].p_memsz = dyn.size() * sizeof(Elf64_Dyn);
  std::string bytes(reinterpret_cast<const char*>(&eh), sizeof eh);
  bytes.append(reinterpret_cast<const char*>(ph), sizeof ph);
  bytes += strtab;
  bytes.resize(dyn_off, '\0');
  bytes.append(reinterpret_cast<const char*>(dyn.data()), dyn.size() * sizeof(Elf64_Dyn));
  return bytes;
}

// A Jetson AGX Orin on JetPack 6.1: no PCI GPU, the device tree and nv_tegra_release say what it is.
inline void orin(Fixture& f, const TorchSpec& torch) {
  add_base_system(f);
  f.write("/lib/ld-linux-aarch64.so.1", "");
  f.write("/etc/nv_tegra_release", "# R36 (release), REVISION: 4.0, GCID: 37537400, BOARD: generic, EABI: aarch64\n");
  f.write("/sys/devices/soc0/family", "Tegra\n");
  f.write("/proc/device-tree/model", std::string("NVIDIA Jetson AGX Orin Developer Kit") + '\0');
  f.write("/proc/device-tree/compatible", std::string("nvidia,p3737-0000+p3701-0005") + '\0' + "nvidia,p3701-0005" + '\0' +
                                              "nvidia,tegra234" + '\0');
  add_torch_venv(f, "/home/alice/venv", torch);
}

// A DGX Spark: GB10 (12.1) behind a Grace CPU, the driver answering.
inline void gb10(Fixture& f, const TorchSpec& torch) {
  add_base_system(f);
  make_grace(f);
  add_nvidia_gpu(f, "000f:01:00.0", "2e12");
  add_loaded_driver(f, "580.95.05");
  add_device_nodes(f, 1);
  add_user_driver(f, "580.95.05", "devices=1\ndev0.name=NVIDIA GB10\ndev0.cc=12.1\ncuda.driver_version=13000\n",
                  "/usr/lib/aarch64-linux-gnu");
  add_torch_venv(f, "/home/alice/venv", torch);
}

inline constexpr const char* kSp = "/home/alice/venv/lib/python3.11/site-packages";

// NVIDIA's torch for JetPack 6.0 (CUDA 12.2, cuDNN 8.9): no nvidia-* wheels; its CUDA library needs
// cuDNN 8 and CUDA 12's runtime, the rest beside it.
inline TorchSpec jetpack60_wheel() {
  TorchSpec t;
  t.version = "2.4.0a0+3bcc3cddb5.nv24.07", t.cuda = "12.2", t.pins = {}, t.installed = {};
  return t;
}

inline void jetpack60_libraries(Fixture& f) {
  f.write(std::string(kSp) + "/torch/lib/libtorch_cuda.so",
          aarch64_library({"libc10_cuda.so", "libcudart.so.12", "libcudnn.so.8"}, "$ORIGIN"));
  f.write(std::string(kSp) + "/torch/lib/libc10_cuda.so", aarch64_library({}));
  f.write("/usr/lib/aarch64-linux-gnu/libcudart.so.12", aarch64_library({}));
  f.write("/usr/lib/aarch64-linux-gnu/libcudnn.so.9", aarch64_library({}));  // JetPack 6.2's cuDNN 9.3
}

inline void jetpack62(Fixture& f) {
  f.write("/etc/nv_tegra_release", "# R36 (release), REVISION: 4.3, GCID: 38968081, BOARD: generic, EABI: aarch64\n");
}

}  // namespace dlready::test
