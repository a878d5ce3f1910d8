// A fact group described once: each row is a fact's JSON key in the doctor's report, the member
// it is (or, for a nested group or list, the function that writes it with the nested group's
// table), and whether and how `dlready snapshot` compares it. The JSON writer
// (facts/fact_json.hpp) and the snapshot walk these tables; the tables themselves sit beside their
// structs (facts/facts_<group>.cpp). The driver probes' device tables, which are also the probe
// child's wire, are facts/device_fields.hpp.
#pragma once
#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace dlready {

// Compared by snapshot/diff as written, in GiB, or as the CUDA version cuDriverGetVersion's number means
// (13000: "13.0").
enum class SnapshotAs { no, text, gib, cuda_version };

template <class Group>
struct FactField {
  using Nested = nlohmann::json (*)(const Group&);  // a nested group or list, written with its own table
  const char* key;
  std::variant<std::optional<std::string> Group::*, std::optional<uint64_t> Group::*, std::optional<int> Group::*,
               std::optional<bool> Group::*, std::optional<double> Group::*, bool Group::*, int Group::*,
               double Group::*, std::string Group::*, std::vector<std::string> Group::*,
               std::optional<std::vector<std::string>> Group::*, std::vector<uint64_t> Group::*,
               std::map<std::string, std::string> Group::*, Nested>
      member;
  SnapshotAs snapshot = SnapshotAs::no;
  const char* snapshot_label = nullptr;  // the row's name in the snapshot (nullptr: the key)
};

template <class Group>
using FactTable = std::vector<FactField<Group>>;

}  // namespace dlready
