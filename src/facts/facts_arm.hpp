// What an Arm (aarch64) Linux machine's files say of its platform: a Jetson (Tegra: its L4T release,
// JetPack, SoC and integrated GPU), a Grace CPU (GH200/GB200, DGX Spark's GB10), the kernel's page
// size. Plain data (std::nullopt = unknown); the tables say how each field is written.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "facts/fact_table.hpp"

namespace dlready {

// A NUMA node with memory and no processors: a GH200's HBM in the default NUMA mode (CDMM hides it).
struct MemoryOnlyNode {
  int node = 0;                           // /sys/devices/system/node/node<N>
  std::optional<uint64_t> mem_total;      // its meminfo's MemTotal, bytes
  std::optional<uint64_t> file_pages;     // its meminfo's FilePages: the page cache placed in it
};

// Triton's own ptxas in a Python environment (triton/backends/nvidia/bin/ptxas), which
// torch.compile uses unless TRITON_PTXAS_PATH names another.
struct TritonPtxas {
  std::string path;
  std::optional<std::string> cuda_release;  // "12.8": the "Cuda compilation tools, release 12.8" in it
};

struct ArmFacts {
  std::optional<std::string> soc_family;   // /sys/devices/soc0/family ("Tegra")
  std::optional<std::string> soc_id;       // /sys/devices/soc0/soc_id ("jep106:036b:0241": NVIDIA Grace)
  std::optional<std::string> model;        // /proc/device-tree/model ("NVIDIA Jetson AGX Orin Developer Kit")
  std::vector<std::string> compatible;     // /proc/device-tree/compatible ("nvidia,tegra234", ...)
  std::optional<std::string> l4t_release;  // /etc/nv_tegra_release "# R36 (release), REVISION: 4.3" -> "36.4.3"
  std::optional<std::string> jetpack;      // from the L4T release (diagnose: JetPack <-> L4T table)
  std::vector<std::string> tegra_device_nodes;  // /dev/nvmap, /dev/nvhost-ctrl-gpu, /dev/nvgpu/igpu0/ctrl present
  bool tegra = false;                      // a Jetson (nv_tegra_release, a tegra SoC family or compatible)
  bool grace = false;                      // an NVIDIA Grace CPU (soc_id jep106:036b:0241)
  std::optional<uint64_t> page_size;       // bytes: sysconf on this machine; a root's THP PMD size says it
  // With pages larger than 4 KiB: the Python environments' shared objects whose PT_LOAD alignment is
  // below the page size ("<path>: aligned to 4096"), which the loader refuses to map.
  std::vector<std::string> misaligned_libraries;
  // With pages larger than 4 KiB: the environments' bundled jemalloc copies (built for one page size;
  // one built for 4K pages aborts with "<jemalloc>: Unsupported system page size").
  std::vector<std::string> jemalloc_libraries;
  std::vector<MemoryOnlyNode> memory_only_nodes;
  std::vector<TritonPtxas> triton_ptxas;
};

const FactTable<MemoryOnlyNode>& memory_only_node_fields();
const FactTable<TritonPtxas>& triton_ptxas_fields();
const FactTable<ArmFacts>& arm_fields();

}  // namespace dlready
