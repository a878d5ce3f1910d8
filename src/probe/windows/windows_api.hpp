// What the Windows source of facts asks Windows — the registry, files, version resources, the
// system's calls, DXGI and the driver probes' children — behind one interface, so that the probes
// of probe/windows/ run the same on the machine (live_windows.cpp, Windows only), while a capture
// is made (a recording of the live answers) and on any build replaying a capture's answers
// (recorded_windows.cpp). The probes never call Win32 themselves.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/byte_reader.hpp"
#include "facts/capture_manifest.hpp"
#include "facts/windows_answers.hpp"
#include "probe/driver_children.hpp"
#include "probe/python_files.hpp"

namespace dlready {

enum class RegistryHive { local_machine, current_user };
const char* hive_name(RegistryHive hive);  // HKLM, HKCU

class WindowsApi {
 public:
  virtual ~WindowsApi() = default;
  // A REG_SZ / REG_EXPAND_SZ value as text (unexpanded); nullopt when missing or of another type.
  virtual std::optional<std::string> registry_text(RegistryHive, const std::string& key, const std::string& value) const = 0;
  // A REG_DWORD or REG_QWORD value (a REG_BINARY of 4 or 8 bytes too: older drivers store the
  // adapter's memory so).
  virtual std::optional<uint64_t> registry_number(RegistryHive, const std::string& key, const std::string& value) const = 0;
  // The names of a key's subkeys, in the registry's order; empty when the key is missing.
  virtual std::vector<std::string> registry_subkeys(RegistryHive, const std::string& key) const = 0;
  // A key's text values (REG_SZ, REG_EXPAND_SZ) as (name, text), in the registry's order.
  virtual std::vector<std::pair<std::string, std::string>> registry_text_values(RegistryHive, const std::string& key) const = 0;
  virtual bool path_exists(const std::string& path) const = 0;
  virtual bool is_file(const std::string& path) const = 0;  // exists and is not a folder
  // The whole file when it is a disk file (no pipe, console or device) of at most `limit` bytes.
  virtual std::optional<std::string> read_file(const std::string& path, size_t limit) const = 0;
  virtual std::vector<std::string> list_dir(const std::string& dir) const = 0;  // sorted, without . and ..
  // A disk file read by ranges (the PE reader's: a DLL of a gigabyte costs a few small reads).
  virtual ByteReader file_ranges(const std::string& path) const = 0;
  // A folder on another machine (\\server\share, or a drive mapped to one): reading it can wait
  // for the network's time-out, so the probes that walk PATH leave such folders unread.
  virtual bool on_network(const std::string& path) const = 0;
  virtual std::string system_directory() const = 0;   // C:\Windows\System32 as this Windows has it
  virtual std::string windows_directory() const = 0;  // C:\Windows
  virtual std::optional<std::string> file_version(const std::string& path) const = 0;  // "32.0.15.6094"
  virtual WindowsSystemInfo system_info() const = 0;
  virtual DxgiAnswer dxgi() const = 0;
  // The driver's answer from a child process (cuda or nvml, the DLL's path), killed after
  // `timeout_ms`; nullopt only on replay, for a capture made without the driver probes.
  virtual std::optional<ChildResult> driver_child(const std::string& kind, const std::string& dll, int timeout_ms) const = 0;
};

// The files as the readers shared with Linux take them (probe/python_files.hpp).
FileSource windows_files(const WindowsApi& api);

// This Windows machine (live_windows.cpp; the Windows build only).
std::unique_ptr<WindowsApi> live_windows();
// `inner`'s answers, each also written into `into` (its `windows` and `children`: `dlready capture`).
std::unique_ptr<WindowsApi> recording_windows(const WindowsApi& inner, AccessLog& into);
// A capture's answers: `answers`, and the driver children's from `children` (facts/capture_manifest.hpp).
std::unique_ptr<WindowsApi> replayed_windows(const WindowsAnswers& answers, const std::map<std::string, ChildAnswer>& children);

}  // namespace dlready
