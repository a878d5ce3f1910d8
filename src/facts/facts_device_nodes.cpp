#include "facts/facts_device_nodes.hpp"

#include "facts/fact_json.hpp"

namespace dlready {

const FactTable<DeviceNodeFacts>& device_nodes_fields() {
  static const FactTable<DeviceNodeFacts> kFields = {
      {"user", &DeviceNodeFacts::checked_user},
      {"nodes", +[](const DeviceNodeFacts& n) { return fact_list_json(n.nodes, device_node_fields()); }},
  };
  return kFields;
}

const FactTable<DeviceNode>& device_node_fields() {
  static const FactTable<DeviceNode> kFields = {
      {"path", &DeviceNode::path},
      {"exists", &DeviceNode::exists},
      {"accessible", &DeviceNode::accessible},
      {"mode", &DeviceNode::mode},
  };
  return kFields;
}

}  // namespace dlready
