// Fuzzes every file parser of the probes at once: the input is written to each file the doctor
// reads (kernel module, /proc and /sys files, os-release, passwd/group, torch version.py and
// METADATA, a dist-info name, CUDA version.json, ld.so.cache) under a fake root, then the facts
// are gathered (without loading any driver library) and diagnosed, and every renderer and writer
// runs on those facts: the doctor's JSON must parse back, and each line `dlready export` writes must
// be a comment or a line of its own kind (a fuzzed field must never start a line of its own).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "diagnose/rules.hpp"
#include "probe/gather.hpp"
#include "report/render.hpp"
#include "snapshot/export.hpp"
#include "snapshot/stack.hpp"

namespace {

void put(const std::string& path, const uint8_t* data, size_t size) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  std::fwrite(data, 1, size, f);
  std::fclose(f);
}

bool is_export_line(const std::string& l) {
  // A requirements pin "name==version" (names and versions are checked to hold no space).
  auto eq = l.find("==");
  if (eq != std::string::npos && eq > 0 && l.find_first_of(" \t\r") == std::string::npos) return true;
  for (const char* start : {"#", "--extra-index-url ", "torch==", "FROM ", "RUN ", "ENV ", "name: ", "channels:",
                            "  - ", "dependencies:", "    - "})
    if (l.rfind(start, 0) == 0) return true;
  return l.empty();
}

void render_everything(const dlready::Facts& facts) {
  auto report = dlready::diagnose(facts);
  (void)dlready::render_text(facts, report, {true});
  (void)dlready::render_markdown(facts, report);
  auto json = dlready::render_json(facts, report);
  auto back = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (back.is_discarded()) std::abort();  // the doctor wrote JSON it cannot read back
  auto snapshot = dlready::make_snapshot(back, "host", "2026-12-03T00:00:00Z");
  for (const char* format : {"requirements", "conda", "dockerfile"}) {
    auto e = dlready::export_stack(snapshot, format);
    size_t start = 0;
    while (start < e.text.size()) {
      size_t nl = e.text.find('\n', start);
      if (nl == std::string::npos) nl = e.text.size();
      if (!is_export_line(e.text.substr(start, nl - start))) std::abort();  // a field started a line
      start = nl + 1;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string root = [] {
    // The fake root lives in memory where it can: 19 files are rewritten on every execution.
    std::string tmpl = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm/dlready-fuzz-XXXXXX" : "/tmp/dlready-fuzz-XXXXXX";
    std::string r = ::mkdtemp(tmpl.data());
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
        "/venv/lib/python3.11/site-packages/torch-2.11.0.dist-info/METADATA", "/venv/pyvenv.cfg", "/etc/nv_tegra_release"})
    put(root + p, data, size);
  dlready::GatherOptions opt;
  opt.root = root;
  opt.driver_probe = false;
  opt.env = {{"VIRTUAL_ENV", "/venv"}, {"HOME", "/home/x"}, {"CUDA_VISIBLE_DEVICES", std::string(reinterpret_cast<const char*>(data), size > 32 ? 32 : size)}};
  auto g = dlready::gather_facts(opt);
  if (g.error.empty()) render_everything(g.facts);
  return 0;
}
