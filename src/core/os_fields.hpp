// The system facts (OsFacts) as one table: each row is a fact's JSON key under facts.os, the member
// it is, and whether and how `dlready snapshot` compares it. The JSON writer and the snapshot walk
// it, so a new system fact is its probe, a member in facts.hpp and a row here (the text report's
// sentence about the system is written by hand: report/section_facts.cpp).
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/facts.hpp"

namespace dlready {

struct OsField {
  enum class Snapshot { no, text, gib };  // compared by snapshot/diff as written, or in GiB
  const char* key;
  std::variant<std::optional<std::string> OsFacts::*, std::optional<uint64_t> OsFacts::*, std::optional<int> OsFacts::*,
               bool OsFacts::*, std::vector<std::string> OsFacts::*, std::optional<std::vector<std::string>> OsFacts::*>
      member;
  Snapshot snapshot = Snapshot::no;
  const char* snapshot_label = nullptr;  // the row's name in the snapshot ("" = the key)
};

// In the order the snapshot lists the compared ones.
const std::vector<OsField>& os_fields();

// The value as the doctor's JSON writes it (null when unknown).
nlohmann::json os_field_json(const OsFacts& os, const OsField& f);

}  // namespace dlready
