// /dev/nvidia* and /dev/dxg, and who may open them.
// Plain data (std::nullopt = unknown); the tables say how each field is written (facts/fact_table.hpp).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "facts/fact_table.hpp"

namespace dlready {

struct DeviceNode {
  std::string path;
  bool exists = false;
  bool accessible = false;  // read+write for the user being checked
  std::optional<std::string> mode;  // "crw-rw-rw-" style
  std::optional<std::string> owner, group;  // names from /etc/passwd and /etc/group (else the number)
};

struct DeviceNodeFacts {
  std::string checked_user;  // "root", "alice (uid 1000)"
  std::vector<DeviceNode> nodes;  // /dev/nvidiactl, /dev/nvidia0.., /dev/nvidia-uvm, /dev/dxg
  // The users in the group of /dev/nvidiactl: its /etc/group members and those whose primary group it is.
  std::vector<std::string> group_members;
  // /proc/driver/nvidia/params: DeviceFileUID, DeviceFileGID, DeviceFileMode (decimal, as the driver prints).
  std::map<std::string, std::string> driver_params;
};

const FactTable<DeviceNodeFacts>& device_nodes_fields();
const FactTable<DeviceNode>& device_node_fields();

}  // namespace dlready
