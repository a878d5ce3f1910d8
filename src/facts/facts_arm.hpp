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

struct ArmFacts {
  std::optional<std::string> soc_family;   // /sys/devices/soc0/family ("Tegra")
  std::optional<std::string> soc_id;       // /sys/devices/soc0/soc_id ("jep106:036b:0241": NVIDIA Grace)
  std::optional<std::string> model;        // /proc/device-tree/model ("NVIDIA Jetson AGX Orin Developer Kit")
  std::vector<std::string> compatible;     // /proc/device-tree/compatible ("nvidia,tegra234", ...)
  std::optional<std::string> l4t_release;  // /etc/nv_tegra_release "# R36 (release), REVISION: 4.3" -> "36.4.3"
  std::optional<std::string> jetpack;      // from the L4T release (diagnose: JetPack <-> L4T table)
  bool tegra = false;                      // a Jetson (nv_tegra_release, a tegra SoC family or compatible)
  bool grace = false;                      // an NVIDIA Grace CPU (soc_id jep106:036b:0241)
  std::optional<uint64_t> page_size;       // bytes: sysconf on this machine; a root's THP PMD size says it
  // With pages larger than 4 KiB: the Python environments' shared objects whose PT_LOAD alignment is
  // below the page size ("<path>: aligned to 4096"), which the loader refuses to map.
  std::vector<std::string> misaligned_libraries;
};

const FactTable<ArmFacts>& arm_fields();

}  // namespace dlready
