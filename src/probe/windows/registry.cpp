#include "probe/windows/registry.hpp"

namespace dlready {
namespace {

// An open key, closed when it goes.
struct OpenKey {
  HKEY handle = nullptr;
  OpenKey(HKEY hive, const std::string& key) {
    if (::RegOpenKeyExW(hive, wide_from_utf8(key).c_str(), 0, KEY_READ | KEY_WOW64_64KEY, &handle) != ERROR_SUCCESS)
      handle = nullptr;
  }
  ~OpenKey() {
    if (handle) ::RegCloseKey(handle);
  }
  OpenKey(const OpenKey&) = delete;
  OpenKey& operator=(const OpenKey&) = delete;
};

// The value's type and bytes (at most 64 KiB: no fact is longer).
bool read_value(HKEY hive, const std::string& key, const std::string& value, DWORD& type, std::vector<BYTE>& bytes) {
  OpenKey k(hive, key);
  if (!k.handle) return false;
  DWORD size = 0;
  std::wstring name = wide_from_utf8(value);
  if (::RegQueryValueExW(k.handle, name.c_str(), nullptr, &type, nullptr, &size) != ERROR_SUCCESS || size > 65536)
    return false;
  bytes.assign(size, 0);
  if (::RegQueryValueExW(k.handle, name.c_str(), nullptr, &type, bytes.data(), &size) != ERROR_SUCCESS) return false;
  bytes.resize(size);  // the value may have shrunk between the two calls
  return true;
}

}  // namespace

std::optional<std::string> registry_text(HKEY hive, const std::string& key, const std::string& value) {
  DWORD type = 0;
  std::vector<BYTE> bytes;
  if (!read_value(hive, key, value, type, bytes) || (type != REG_SZ && type != REG_EXPAND_SZ)) return std::nullopt;
  std::wstring wide(reinterpret_cast<const wchar_t*>(bytes.data()), bytes.size() / sizeof(wchar_t));
  while (!wide.empty() && wide.back() == L'\0') wide.pop_back();
  return utf8_from_wide(wide);
}

std::optional<uint64_t> registry_number(HKEY hive, const std::string& key, const std::string& value) {
  DWORD type = 0;
  std::vector<BYTE> bytes;
  if (!read_value(hive, key, value, type, bytes)) return std::nullopt;
  if ((type == REG_DWORD || type == REG_BINARY) && bytes.size() == 4) {
    uint32_t v;
    memcpy(&v, bytes.data(), 4);
    return v;
  }
  if ((type == REG_QWORD || type == REG_BINARY) && bytes.size() == 8) {
    uint64_t v;
    memcpy(&v, bytes.data(), 8);
    return v;
  }
  return std::nullopt;
}

std::vector<std::string> registry_subkeys(HKEY hive, const std::string& key) {
  std::vector<std::string> out;
  OpenKey k(hive, key);
  if (!k.handle) return out;
  for (DWORD i = 0;; ++i) {
    wchar_t name[256];
    DWORD len = 256;
    if (::RegEnumKeyExW(k.handle, i, name, &len, nullptr, nullptr, nullptr, nullptr) != ERROR_SUCCESS) break;
    out.push_back(utf8_from_wide(std::wstring(name, len)));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> registry_text_values(HKEY hive, const std::string& key) {
  std::vector<std::pair<std::string, std::string>> out;
  OpenKey k(hive, key);
  if (!k.handle) return out;
  for (DWORD i = 0; i < 4096; ++i) {
    wchar_t name[16384];  // the longest value name the registry allows
    DWORD len = 16384, type = 0;
    if (::RegEnumValueW(k.handle, i, name, &len, nullptr, &type, nullptr, nullptr) != ERROR_SUCCESS) break;
    if (type != REG_SZ && type != REG_EXPAND_SZ) continue;
    std::string utf8 = utf8_from_wide(std::wstring(name, len));
    if (auto text = registry_text(hive, key, utf8)) out.push_back({utf8, *text});
  }
  return out;
}

}  // namespace dlready
