// Reading the Windows registry: values as UTF-8 text or numbers, a key's subkeys. Nothing is
// written. A missing key or value is nullopt (unknown), as every fact is.
#pragma once
#include <windows.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "os/windows_text.hpp"

namespace dlready {

// A REG_SZ / REG_EXPAND_SZ value as text (unexpanded); nullopt when missing or of another type.
std::optional<std::string> registry_text(HKEY hive, const std::string& key, const std::string& value);
// A REG_DWORD or REG_QWORD value (a REG_BINARY of 4 or 8 bytes too: older drivers store the
// adapter's memory so).
std::optional<uint64_t> registry_number(HKEY hive, const std::string& key, const std::string& value);
// The names of a key's subkeys, in the registry's order; empty when the key is missing.
std::vector<std::string> registry_subkeys(HKEY hive, const std::string& key);
// A key's text values (REG_SZ, REG_EXPAND_SZ) as (name, text), in the registry's order.
std::vector<std::pair<std::string, std::string>> registry_text_values(HKEY hive, const std::string& key);

}  // namespace dlready
