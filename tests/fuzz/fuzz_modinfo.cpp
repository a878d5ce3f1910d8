// Fuzzes the kernel-module (.modinfo via ELF section table) reader through a fake root.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/root_fs.hpp"
#include "probe/probes.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::string root = [] {
    char tmpl[] = "/tmp/dlready-fuzz-XXXXXX";
    std::string r = ::mkdtemp(tmpl);
    std::string cmd = "mkdir -p " + r + "/lib/modules/k/updates " + r + "/proc/driver/nvidia";
    if (std::system(cmd.c_str()) != 0) std::abort();
    return r;
  }();
  FILE* f = std::fopen((root + "/lib/modules/k/updates/nvidia.ko").c_str(), "wb");
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  f = std::fopen((root + "/proc/driver/nvidia/version").c_str(), "wb");
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  dlready::RootFs fs(root);
  auto k = dlready::probe_kernel_driver(fs, std::string("k"));
  (void)k.module_file_version;
  return 0;
}
