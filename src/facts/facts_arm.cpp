#include "facts/facts_arm.hpp"

namespace dlready {

const FactTable<ArmFacts>& arm_fields() {
  using A = ArmFacts;
  static const FactTable<A> kFields = {
      {"soc_family", &A::soc_family}, {"soc_id", &A::soc_id},   {"model", &A::model},
      {"compatible", &A::compatible}, {"l4t_release", &A::l4t_release}, {"jetpack", &A::jetpack},
      {"tegra", &A::tegra},           {"grace", &A::grace},     {"page_size", &A::page_size},
      {"misaligned_libraries", &A::misaligned_libraries},
  };
  return kFields;
}

}  // namespace dlready
