// The environment variables the doctor reads.
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

struct EnvFacts {
  // Only the variables the doctor cares about; absent = unset.
  std::map<std::string, std::string> vars;
  std::optional<std::string> get(const std::string& k) const {
    auto it = vars.find(k);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  }
};

}  // namespace dlready
