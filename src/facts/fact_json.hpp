// Fact groups as the doctor's JSON writes them, by walking their tables (facts/fact_table.hpp).
#pragma once
#include <nlohmann/json.hpp>
#include <type_traits>

#include "facts/fact_table.hpp"

namespace dlready {

// The value as the doctor's JSON writes it (null when unknown).
template <class Group>
nlohmann::json fact_field_json(const Group& group, const FactField<Group>& f) {
  return std::visit(
      [&](auto member) -> nlohmann::json {
        if constexpr (std::is_same_v<decltype(member), typename FactField<Group>::Nested>) {
          return member(group);
        } else {
          const auto& v = group.*member;
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, int> || std::is_same_v<T, double> ||
                        std::is_same_v<T, std::string> || std::is_same_v<T, std::vector<std::string>> ||
                        std::is_same_v<T, std::vector<uint64_t>> || std::is_same_v<T, std::map<std::string, std::string>>)
            return v;
          else
            return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
        }
      },
      f.member);
}

// Every row of `fields` into one JSON object.
template <class Group>
nlohmann::json fact_group_json(const Group& group, const FactTable<Group>& fields) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& f : fields) out[f.key] = fact_field_json(group, f);
  return out;
}

// A list of groups as a JSON array of objects.
template <class Group>
nlohmann::json fact_list_json(const std::vector<Group>& list, const FactTable<Group>& fields) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& g : list) out.push_back(fact_group_json(g, fields));
  return out;
}

}  // namespace dlready
