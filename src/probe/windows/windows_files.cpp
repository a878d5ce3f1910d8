#include "probe/windows/windows_files.hpp"

#include <algorithm>
#include <memory>

#include "core/text.hpp"
#include "probe/windows/registry.hpp"

namespace dlready {

bool path_exists(const std::string& path) {
  return ::GetFileAttributesW(wide_from_utf8(path).c_str()) != INVALID_FILE_ATTRIBUTES;
}

bool is_file(const std::string& path) {
  DWORD attributes = ::GetFileAttributesW(wide_from_utf8(path).c_str());
  return attributes != INVALID_FILE_ATTRIBUTES && !(attributes & FILE_ATTRIBUTE_DIRECTORY);
}

std::optional<std::string> read_file(const std::string& path, size_t limit) {
  HANDLE h = ::CreateFileW(wide_from_utf8(path).c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, nullptr,
                           OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (h == INVALID_HANDLE_VALUE) return std::nullopt;
  LARGE_INTEGER size{};
  std::optional<std::string> out;
  if (::GetFileType(h) == FILE_TYPE_DISK && ::GetFileSizeEx(h, &size) && size.QuadPart >= 0 &&
      static_cast<uint64_t>(size.QuadPart) <= limit) {
    std::string bytes(static_cast<size_t>(size.QuadPart), '\0');
    DWORD got = 0;
    if (bytes.empty() || (::ReadFile(h, bytes.data(), static_cast<DWORD>(bytes.size()), &got, nullptr) && got == bytes.size()))
      out = std::move(bytes);
  }
  ::CloseHandle(h);
  return out;
}

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> names;
  WIN32_FIND_DATAW found;
  HANDLE h = ::FindFirstFileW(wide_from_utf8(dir + "\\*").c_str(), &found);
  if (h == INVALID_HANDLE_VALUE) return names;
  do {
    std::string name = utf8_from_wide(found.cFileName);
    if (name != "." && name != "..") names.push_back(name);
  } while (::FindNextFileW(h, &found));
  ::FindClose(h);
  std::sort(names.begin(), names.end());
  return names;
}

ByteReader file_ranges(const std::string& path) {
  HANDLE h = ::CreateFileW(wide_from_utf8(path).c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, nullptr,
                           OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (h == INVALID_HANDLE_VALUE) return [](uint64_t, size_t) -> std::optional<std::string> { return std::nullopt; };
  std::shared_ptr<void> file(h, ::CloseHandle);
  bool disk = ::GetFileType(h) == FILE_TYPE_DISK;
  return [file, disk](uint64_t offset, size_t len) -> std::optional<std::string> {
    if (!disk || len > (1u << 24)) return std::nullopt;
    std::string bytes(len, '\0');
    OVERLAPPED at{};
    at.Offset = static_cast<DWORD>(offset);
    at.OffsetHigh = static_cast<DWORD>(offset >> 32);
    DWORD got = 0;
    if (!::ReadFile(file.get(), bytes.data(), static_cast<DWORD>(len), &got, &at) && ::GetLastError() != ERROR_HANDLE_EOF)
      return std::nullopt;
    bytes.resize(got);
    return bytes;
  };
}

bool on_network(const std::string& path) {
  if (starts_with(path, "\\\\") || starts_with(path, "//")) return true;
  if (path.size() < 2 || path[1] != ':') return false;
  const std::wstring root = wide_from_utf8(path.substr(0, 2) + "\\");
  return ::GetDriveTypeW(root.c_str()) == DRIVE_REMOTE;
}

std::string system_directory() {
  wchar_t dir[MAX_PATH];
  UINT n = ::GetSystemDirectoryW(dir, MAX_PATH);
  return n > 0 && n < MAX_PATH ? utf8_from_wide(std::wstring(dir, n)) : "C:\\Windows\\System32";
}

std::string windows_directory() {
  wchar_t dir[MAX_PATH];
  UINT n = ::GetWindowsDirectoryW(dir, MAX_PATH);
  return n > 0 && n < MAX_PATH ? utf8_from_wide(std::wstring(dir, n)) : "C:\\Windows";
}

}  // namespace dlready
