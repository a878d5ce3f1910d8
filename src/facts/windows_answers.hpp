// What the Windows source of facts asked Windows, and what Windows answered: the registry, the
// files (whole, by ranges, their folders), version resources, the system's own calls and DXGI.
// `dlready capture` on Windows records them (probe/windows/windows_api.hpp: a recording
// WindowsApi); any build replays them through the same probes, so a capture from Windows reads on
// Linux exactly as the Windows build read it. Plain data: an answer is recorded as given, nullopt
// (unknown) included; a question never asked has no answer on replay (unknown, as a missing file).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/redact.hpp"
#include "facts/facts_windows.hpp"

namespace dlready {

// Windows' own calls the OS probe makes (RtlGetVersion, GetNativeSystemInfo, GlobalMemoryStatusEx).
struct WindowsSystemInfo {
  std::optional<unsigned> major, minor, build;  // RtlGetVersion
  std::optional<std::string> arch;              // x86_64, aarch64, x86
  std::optional<int> processors;
  std::optional<uint64_t> memory_bytes;
};

// DXGI's adapters and its first choices (facts/facts_windows.hpp's fields, as asked).
struct DxgiAnswer {
  std::vector<DxgiAdapter> adapters;
  std::optional<std::string> high_performance, minimum_power, error;
};

struct WindowsAnswers {
  using RegistryValue = std::tuple<std::string, std::string, std::string>;  // hive (HKLM, HKCU), key, value
  using RegistryKey = std::pair<std::string, std::string>;                   // hive, key
  std::map<RegistryValue, std::optional<std::string>> registry_texts;
  std::map<RegistryValue, std::optional<uint64_t>> registry_numbers;
  std::map<RegistryKey, std::vector<std::string>> registry_subkeys;
  std::map<RegistryKey, std::vector<std::pair<std::string, std::string>>> registry_text_values;
  std::map<std::string, bool> exists, is_file, on_network;   // path -> answer
  std::map<std::string, std::vector<std::string>> listings;  // folder -> its names
  std::map<std::pair<std::string, uint64_t>, std::optional<std::string>> files;  // (path, size limit) -> bytes
  // path -> (offset, length) -> bytes (the PE reader's reads of a DLL); a path it could not open
  // has no ranges.
  std::map<std::string, std::map<std::pair<uint64_t, uint64_t>, std::optional<std::string>>> ranges;
  std::map<std::string, std::optional<std::string>> file_versions;  // path -> version resource
  std::optional<std::string> system_directory, windows_directory;
  WindowsSystemInfo system;
  std::optional<DxgiAnswer> dxgi;
};

// The answers with what `redactor` hides replaced, the questions too, so that a replay under the
// capture's redacted environment (C:\Users\<user-1>) asks exactly the recorded questions; text
// is redacted, a DLL's bytes are masked in place (their offsets must not move).
[[nodiscard]] WindowsAnswers redacted_answers(const WindowsAnswers& answers, const Redactor& redactor);

}  // namespace dlready
