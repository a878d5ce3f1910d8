#include "facts/facts_arm.hpp"

#include "facts/fact_json.hpp"

namespace dlready {

const FactTable<MemoryOnlyNode>& memory_only_node_fields() {
  using N = MemoryOnlyNode;
  static const FactTable<N> kFields = {{"node", &N::node}, {"mem_total", &N::mem_total}, {"file_pages", &N::file_pages}};
  return kFields;
}

const FactTable<TritonPtxas>& triton_ptxas_fields() {
  using T = TritonPtxas;
  static const FactTable<T> kFields = {{"path", &T::path}, {"cuda_release", &T::cuda_release}};
  return kFields;
}

const FactTable<ArmFacts>& arm_fields() {
  using A = ArmFacts;
  static const FactTable<A> kFields = {
      {"soc_family", &A::soc_family}, {"soc_id", &A::soc_id},   {"model", &A::model},
      {"compatible", &A::compatible}, {"l4t_release", &A::l4t_release}, {"jetpack", &A::jetpack},
      {"tegra", &A::tegra}, {"tegra_device_nodes", &A::tegra_device_nodes},           {"grace", &A::grace},     {"page_size", &A::page_size},
      {"misaligned_libraries", &A::misaligned_libraries}, {"jemalloc_libraries", &A::jemalloc_libraries},
      {"memory_only_nodes", +[](const A& a) { return fact_list_json(a.memory_only_nodes, memory_only_node_fields()); }},
      {"triton_ptxas", +[](const A& a) { return fact_list_json(a.triton_ptxas, triton_ptxas_fields()); }},
  };
  return kFields;
}

}  // namespace dlready
