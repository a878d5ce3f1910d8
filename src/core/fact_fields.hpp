// The facts of a group as one table: each row is a fact's JSON key in the doctor's report, the
// member it is, and whether and how `dlready snapshot` compares it. The JSON writer and the
// snapshot walk these tables, so a new fact of a group is its probe, a member in facts.hpp and a
// row here (the text report's sentences are written by hand: report/section_facts.cpp). The
// driver probes' device tables are core/device_fields.hpp.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/facts.hpp"

namespace dlready {

enum class SnapshotAs { no, text, gib };  // compared by snapshot/diff as written, or in GiB

template <class Group>
struct FactField {
  const char* key;
  std::variant<std::optional<std::string> Group::*, std::optional<uint64_t> Group::*, std::optional<int> Group::*,
               std::optional<bool> Group::*, bool Group::*, std::vector<std::string> Group::*,
               std::optional<std::vector<std::string>> Group::*, std::vector<uint64_t> Group::*, std::string Group::*>
      member;
  SnapshotAs snapshot = SnapshotAs::no;
  const char* snapshot_label = nullptr;  // the row's name in the snapshot (nullptr: the key)
};

using OsField = FactField<OsFacts>;
// In the order the snapshot lists the compared ones.
const std::vector<FactField<OsFacts>>& os_fields();
const std::vector<FactField<KernelDriverFacts>>& kernel_driver_fields();
// One PCI function (facts.pci.nvidia and other_gpus; the JSON adds "nvidia": which list it is in).
const std::vector<FactField<PciFunction>>& pci_function_fields();

// The value as the doctor's JSON writes it (null when unknown).
template <class Group>
nlohmann::json fact_field_json(const Group& group, const FactField<Group>& f) {
  return std::visit(
      [&](auto member) -> nlohmann::json {
        const auto& v = group.*member;
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::vector<std::string>> ||
                      std::is_same_v<T, std::vector<uint64_t>> || std::is_same_v<T, std::string>)
          return v;
        else
          return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
      },
      f.member);
}

// Every row of `fields` into one JSON object.
template <class Group>
nlohmann::json fact_group_json(const Group& group, const std::vector<FactField<Group>>& fields) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& f : fields) out[f.key] = fact_field_json(group, f);
  return out;
}

}  // namespace dlready
