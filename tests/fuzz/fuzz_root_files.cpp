// Fuzzes every file parser of the probes at once: the input is written to each file the doctor
// reads (kernel module, /proc and /sys files, os-release, passwd/group, torch version.py and
// METADATA, a dist-info name, CUDA version.json, ld.so.cache) under a fake root, then the facts
// are gathered (without loading any driver library) and diagnosed.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "diagnose/rules.hpp"
#include "probe/gather.hpp"

namespace {

void put(const std::string& path, const uint8_t* data, size_t size) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  std::fwrite(data, 1, size, f);
  std::fclose(f);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string root = [] {
    char tmpl[] = "/tmp/dlready-fuzz-XXXXXX";
    std::string r = ::mkdtemp(tmpl);
    std::string dirs = "lib/modules/k/updates proc/driver/nvidia proc/sys/kernel proc/self etc "
                       "sys/devices/pci0000:00/0000:01:00.0 sys/bus/pci/devices usr/local/cuda-12.4 "
                       "venv/lib/python3.11/site-packages/torch venv/lib/python3.11/site-packages/torch-2.11.0.dist-info";
    std::string cmd = "cd " + r + " && mkdir -p " + dirs +
                      " && ln -s ../../../devices/pci0000:00/0000:01:00.0 sys/bus/pci/devices/0000:01:00.0"
                      " && touch venv/pyvenv.cfg && echo k > proc/sys/kernel/osrelease";
    if (std::system(cmd.c_str()) != 0) std::abort();
    return r;
  }();
  for (const char* p :
       {"/lib/modules/k/updates/nvidia.ko", "/proc/driver/nvidia/version", "/proc/modules", "/proc/self/mounts",
        "/proc/meminfo", "/proc/cpuinfo", "/etc/os-release", "/etc/passwd", "/etc/group", "/etc/ld.so.cache",
        "/sys/devices/pci0000:00/0000:01:00.0/vendor", "/sys/devices/pci0000:00/0000:01:00.0/class",
        "/sys/devices/pci0000:00/0000:01:00.0/resource", "/sys/devices/pci0000:00/0000:01:00.0/current_link_width",
        "/usr/local/cuda-12.4/version.json", "/venv/lib/python3.11/site-packages/torch/version.py",
        "/venv/lib/python3.11/site-packages/torch-2.11.0.dist-info/METADATA"})
    put(root + p, data, size);
  dlready::GatherOptions opt;
  opt.root = root;
  opt.driver_probe = false;
  opt.env = {{"VIRTUAL_ENV", "/venv"}, {"HOME", "/home/x"}, {"CUDA_VISIBLE_DEVICES", std::string(reinterpret_cast<const char*>(data), size > 32 ? 32 : size)}};
  auto g = dlready::gather_facts(opt);
  if (g.error.empty()) (void)dlready::diagnose(g.facts);
  return 0;
}
