// Reading snapshot JSON from other machines and other dlready versions: a missing key or an
// unexpected type reads as null / "" instead of throwing.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "core/json_text.hpp"

namespace dlready {

// j[key], or null when j is not an object or has no such key.
inline const nlohmann::json& field(const nlohmann::json& j, const char* key) {
  static const nlohmann::json null_value;
  return j.is_object() && j.contains(key) ? j.at(key) : null_value;
}

// A JSON value as text: strings bare, null as "", numbers and booleans as JSON writes them.
inline std::string text(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  return json_text(v);
}

}  // namespace dlready
